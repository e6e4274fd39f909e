import {
  type BuildContext,
  type ChatModel,
  createBuildContext,
  createPromptTasks,
  type Embedder,
  flatIndexFactory,
  getTokenizer,
  type IndexManifest,
  Meter,
  meteredChat,
  type TaskSuite,
  type VectorIndexFactory,
} from '@grag/core';
import { hnswIndexFactory } from '@grag/hnsw';
import { createOfflineEmbedder, createOfflineTasks } from '@grag/offline';
import { createOpenAI } from '@grag/openai';
import { type GragConfig, usesOpenAI } from './config.js';

export interface Providers {
  ctx: BuildContext;
  mode: 'offline' | 'openai';
  /** One line that says what runs. */
  summary: string;
}

/** Parse an embedder fingerprint `provider:modelId[:dims]` from a manifest. */
function parseFingerprint(
  fp: string | undefined,
): { provider: string; modelId: string; dimensions?: number } | undefined {
  if (!fp) return undefined;
  const [provider, ...rest] = fp.split(':');
  const last = rest.at(-1);
  const dims = last !== undefined && /^\d+$/.test(last) ? Number(last) : undefined;
  const modelId = (dims !== undefined ? rest.slice(0, -1) : rest).join(':');
  return dims !== undefined
    ? { provider: provider!, modelId, dimensions: dims }
    : { provider: provider!, modelId };
}

/**
 * Create the providers for a run. When `manifest` is given (querying an index), the embedder and
 * vector index it was built with are used, so a query always matches its index.
 */
export function createProviders(config: GragConfig, manifest?: IndexManifest): Providers {
  const meter = new Meter();
  const tokenizer = getTokenizer();
  const built = parseFingerprint(manifest?.providers.embedder);
  const vectorKind = manifest?.providers.vectorIndex ?? config.vectorIndex;
  const vectorIndex: VectorIndexFactory = vectorKind === 'flat' ? flatIndexFactory : hnswIndexFactory();
  const openaiMode = built ? built.provider === 'openai' || usesOpenAI(config) : usesOpenAI(config);

  let embedder: Embedder;
  let tasks: TaskSuite;
  let chat: ChatModel | undefined;
  let summary: string;
  if (openaiMode) {
    const openai = createOpenAI({
      apiKey: config.apiKey,
      baseURL: config.baseURL,
      concurrency: config.concurrency,
    });
    chat = meteredChat(openai.chat(config.chatModel), meter, tokenizer);
    tasks = createPromptTasks(chat);
    if (built && built.provider === 'offline') {
      embedder = createOfflineEmbedder(built.modelId);
    } else {
      const model = built?.modelId ?? config.embeddingModel;
      const dimensions = built?.dimensions ?? config.embeddingDimensions;
      embedder = openai.embedding(model, dimensions !== undefined ? { dimensions } : {});
    }
    summary = `grag: using ${config.baseURL ?? 'the OpenAI API'} (chat ${config.chatModel}, embeddings ${embedder.modelId}).`;
  } else {
    embedder = createOfflineEmbedder(built?.provider === 'offline' ? built.modelId : config.offlineEmbedder);
    tasks = createOfflineTasks({ embedder });
    summary = `grag: no OpenAI-compatible endpoint configured (set OPENAI_API_KEY or OPENAI_BASE_URL); running offline with wink-nlp heuristics and the ${embedder.modelId} embedder.`;
  }
  const ctx = createBuildContext({
    embedder,
    tasks,
    tokenizer,
    meter,
    vectorIndex,
    ...(chat ? { chat } : {}),
  });
  return { ctx, mode: openaiMode ? 'openai' : 'offline', summary };
}
