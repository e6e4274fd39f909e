/**
 * Simulated models: they answer without any model, so a build can be run dry to count what it
 * would send (`grag index --estimate`) and tests can drive the prompt path end to end.
 */
import { InvalidArgumentError } from './errors.js';
import type { ChatCallOptions, ChatModel, ChatResult, Embedder } from './models.js';
import type { TaskName } from './tasks/prompts.js';
import { renderTaskOutput } from './tasks/render.js';
import type { TaskSuite } from './tasks/types.js';

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

/** FNV-1a hash of a string. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * A bag-of-words vector: each lower-cased word adds a fixed pseudo-random vector, so texts that
 * share words are similar. Deterministic; used by simulated and scripted embedders.
 */
export function hashedBagOfWords(text: string, dimensions: number): Float32Array {
  const v = new Float32Array(dimensions);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = fnv1a(word);
    for (let d = 0; d < dimensions; d++) {
      h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
      v[d]! += (h / 0xffffffff) * 2 - 1;
    }
  }
  return v;
}

/**
 * An embedder that reports the identity of another (provider, model, dimensions) but computes
 * {@link hashedBagOfWords} vectors locally: a dry run embeds what the real build would, without
 * calling anything. Usage is left out, so a metered wrapper counts tokens with its tokenizer.
 */
export function createSimulatedEmbedder(identity: {
  provider: string;
  modelId: string;
  dimensions: number;
  maxBatchSize?: number;
}): Embedder {
  return {
    specificationVersion: 'v1',
    provider: identity.provider,
    modelId: identity.modelId,
    dimensions: identity.dimensions,
    ...(identity.maxBatchSize !== undefined ? { maxBatchSize: identity.maxBatchSize } : {}),
    async doEmbed({ values }) {
      return { embeddings: values.map((v) => hashedBagOfWords(v, identity.dimensions)) };
    },
  };
}
