/**
 * `@grag/ai-sdk`: Vercel AI SDK models as grag providers, and grag for AI SDK apps.
 * `fromAiSdk(languageModel)` is a grag `ChatModel` and `fromAiSdkEmbedding(embeddingModel, {
 * dimensions })` a grag `Embedder`, so any AI SDK provider drives every grag method; `gragTool`
 * gives an agent a grag index as a search tool with cited items, `gragMiddleware` adds a grag
 * index's items to a model's prompt and its citations as source parts, and `gragUIMessageStream`
 * sends a grag answer with its citations as an AI SDK UI message stream.
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
export {
  GRAG_MIDDLEWARE_INSTRUCTIONS,
  type GragMiddlewareCommonOptions,
  type GragMiddlewareOptions,
  gragMiddleware,
} from './middleware.js';
export {
  GRAG_TOOL_DESCRIPTION,
  type GragToolCommonOptions,
  type GragToolInput,
  type GragToolItem,
  type GragToolOptions,
  type GragToolOutput,
  type GragToolRetrieveOptions,
  gragTool,
} from './tool.js';
export { type GragUIMessageStreamOptions, gragUIMessageStream } from './ui-stream.js';
