export * from './parse.js';
export * from './parsers.js';
export * from './prompt-tasks.js';
export * from './prompts.js';
export * from './render.js';
export * from './types.js';
