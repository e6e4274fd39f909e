/**
 * `@grag/ai-sdk`: Vercel AI SDK models as grag providers. `fromAiSdk(languageModel)` is a grag
 * `ChatModel` and `fromAiSdkEmbedding(embeddingModel, { dimensions })` a grag `Embedder`, so any
 * AI SDK provider drives every grag method.
 *
 * @packageDocumentation
 */
export {
  AI_SDK_CHAT_DEFAULTS,
  AiSdkChatModel,
  type AiSdkChatOptions,
  type AiSdkLanguageModel,
  type AiSdkProviderOptions,
  fromAiSdk,
} from './chat.js';
export {
  AiSdkEmbedder,
  type AiSdkEmbeddingCallOptions,
  type AiSdkEmbeddingModel,
  type AiSdkEmbeddingOptions,
  detectEmbeddingDimensions,
  fromAiSdkEmbedding,
} from './embedding.js';
export { type CallTarget, mapAiSdkError } from './errors.js';
