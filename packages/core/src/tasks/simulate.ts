/**
 * A simulated chat model for the prompt task suite: it answers each prompt by running the same
 * task on another suite (e.g. `@grag/offline`'s heuristics) and rendering the result as the text
 * the prompt asks for, so the prompt path runs end to end without a model (tests, and the CLI's
 * `grag index --estimate`).
 */
import { InvalidArgumentError } from '../contracts/errors.js';
import type { ChatCallOptions, ChatModel, ChatResult } from '../contracts/models.js';
import type { TaskName, TaskSuite } from '../contracts/tasks.js';
import { renderTaskOutput } from './render.js';

/** Renders a task result as the text a model would answer. */
export type TaskRenderer = (task: TaskName, result: unknown, call: ChatCallOptions) => string;

/**
 * The default renderer: the text each prompt asks for ({@link renderTaskOutput}); graph
 * extraction as GraphRAG tuples, or JSON when the call asked for JSON.
 */
export const renderAsPrompted: TaskRenderer = (task, result, call) =>
  renderTaskOutput(task, result as never, { format: call.responseFormat === 'json' ? 'json' : 'tuples' });

/** What a gleaning pass answers when nothing was missed. */
function nothingMore(call: ChatCallOptions): string {
  return call.responseFormat === 'json' ? '{"entities":[],"relations":[]}' : '<|COMPLETE|>';
}

/** Options of {@link createSimulatedChat}. */
export interface SimulatedChatOptions {
  /** Provider name reported (and metered). @default 'simulated' */
  provider?: string;
  /** Model id reported (and metered). @default 'simulated-chat' */
  modelId?: string;
  /** How a task result becomes model text. @default renderAsPrompted */
  render?: TaskRenderer;
}

/**
 * A chat model that answers each call of the prompt task suite by running the same task on
 * `tasks` (e.g. `@grag/offline`'s heuristics) and rendering the result as model output. It
 * reads the `task` metadata of each call; a call without it is an error. Gleaning passes answer
 * "nothing more", gleaning checks answer NO. Token usage is left out, so a metered wrapper counts
 * both directions with its tokenizer.
 */
export function createSimulatedChat(tasks: TaskSuite, options: SimulatedChatOptions = {}): ChatModel {
  const render = options.render ?? renderAsPrompted;
  return {
    specificationVersion: 'v1',
    provider: options.provider ?? 'simulated',
    modelId: options.modelId ?? 'simulated-chat',
    async doGenerate(call): Promise<ChatResult> {
      const task = call.task;
      if (!task) {
        throw new InvalidArgumentError(
          'task',
          'createSimulatedChat: the call carries no task metadata; only calls of the prompt task suite can be simulated.',
        );
      }
      if (task.kind === 'gleaning-check') return { text: 'NO', finishReason: 'stop' };
      if (task.name === 'extractGraph' && (task.turn ?? 0) > 0 && task.kind !== 'repair') {
        return { text: nothingMore(call), finishReason: 'stop' };
      }
      const name = task.name as TaskName;
      const fn = tasks[name] as ((...args: unknown[]) => Promise<unknown>) | undefined;
      if (typeof fn !== 'function') {
        throw new InvalidArgumentError('task', `createSimulatedChat: unknown task "${task.name}".`);
      }
      const result = await fn.apply(tasks, task.args);
      return { text: render(name, result, call), finishReason: 'stop' };
    },
  };
}
