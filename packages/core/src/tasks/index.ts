/**
 * `@grag/core/tasks`: everything about grag's model tasks. The task contracts are also exported
 * from `@grag/core`; this entry point adds their prompt-based implementation `createPromptTasks`,
 * `streamAnswer` (the answer task streamed), the prompt texts, the lenient output parsers and their
 * helpers, the renderers that turn a task result back into model text, and `createSimulatedChat`,
 * which answers the prompt suite's calls from another suite.
 *
 * @packageDocumentation
 */

export * from '../contracts/tasks.js';
export * from './lenient-json.js';
export * from './parsers/index.js';
export * from './prompt-tasks.js';
export * from './prompts.js';
export * from './record-fields.js';
export * from './render.js';
export * from './simulate.js';
export * from './stream-answer.js';
export * from './tuples.js';
