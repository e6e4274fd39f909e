/**
 * Scripted models for tests: they answer from a script and record every call, so a test can
 * assert exactly what was asked of the model. Import from `@grag/core/test`.
 */
import type {
  ChatCallOptions,
  ChatModel,
  ChatResult,
  EmbedCallOptions,
  Embedder,
} from '../contracts/models.js';
import { hashedBagOfWords } from '../simulate.js';

export interface ScriptedChatModel extends ChatModel {
  /** Every call received, in order. */
  readonly calls: ChatCallOptions[];
}

export type ChatScript =
  | string[]
  | ((call: ChatCallOptions, index: number) => string | ChatResult | Promise<string | ChatResult>);

/**
 * A chat model that answers from `script`: an array (one answer per call, in order; running out is
 * an error) or a function of the call.
 */
export function createScriptedChatModel(
  script: ChatScript,
  settings: { modelId?: string; provider?: string } = {},
): ScriptedChatModel {
  const calls: ChatCallOptions[] = [];
  return {
    specificationVersion: 'v1',
    provider: settings.provider ?? 'scripted',
    modelId: settings.modelId ?? 'scripted-chat',
    calls,
    async doGenerate(options) {
      const index = calls.length;
      calls.push(options);
      let answer: string | ChatResult;
      if (Array.isArray(script)) {
        const next = script[index];
        if (next === undefined) {
          throw new Error(
            `scripted chat model: no answer scripted for call ${index + 1} (script has ${script.length})`,
          );
        }
        answer = next;
      } else {
        answer = await script(options, index);
      }
      return typeof answer === 'string' ? { text: answer, finishReason: 'stop' } : answer;
    },
  };
}

export interface ScriptedEmbedder extends Embedder {
  readonly calls: EmbedCallOptions[];
}

/**
 * A deterministic embedder for tests. By default each lower-cased word of a text adds a fixed
 * pseudo-random unit vector (a bag of words), so texts that share words are similar. Pass
 * `embed` to script the vectors instead.
 */
export function createScriptedEmbedder(
  settings: { dimensions?: number; modelId?: string; embed?: (text: string) => ArrayLike<number> } = {},
): ScriptedEmbedder {
  const dimensions = settings.dimensions ?? 32;
  const calls: EmbedCallOptions[] = [];
  return {
    specificationVersion: 'v1',
    provider: 'scripted',
    modelId: settings.modelId ?? 'scripted-embedder',
    dimensions,
    calls,
    async doEmbed(options) {
      calls.push(options);
      const embeddings = options.values.map((text) =>
        settings.embed ? Float32Array.from(settings.embed(text)) : hashedBagOfWords(text, dimensions),
      );
      return { embeddings, usage: { tokens: options.values.reduce((n, t) => n + t.split(/\s+/).length, 0) } };
    },
  };
}
export * from './fixtures.js';
export * from './index-files.js';
export * from './index-fuzz.js';
export * from './intercepted-index.js';
export * from './random.js';
export * from './readme.js';
export * from './resume.js';
export * from './update-persist.js';
// `runVectorIndexSpec` is a vitest suite: it lives in `@grag/core/test/vitest`, so this entry point
// needs no test runner installed.
