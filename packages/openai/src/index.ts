/**
 * `@grag/openai`: grag's `ChatModel` and `Embedder` contracts on any OpenAI-compatible API
 * (OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp server, LM Studio) through the `openai` SDK, with
 * retries, timeouts and a concurrency limit of its own.
 *
 * @packageDocumentation
 */
export { OPENAI_CHAT_DEFAULTS, OpenAIChatModel, type OpenAIChatSettings } from './chat.js';
export { mapFinishReason, parseChatCompletion } from './chat-response.js';
export {
  KNOWN_EMBEDDING_DIMENSIONS,
  OPENAI_EMBEDDING_DEFAULTS,
  OpenAIEmbedder,
  type OpenAIEmbeddingSettings,
  parseEmbeddingResponse,
} from './embedding.js';
export { OPENAI_PRICES } from './pricing.js';
export {
  createOpenAI,
  type FetchFunction,
  OPENAI_DEFAULTS,
  type OpenAIProvider,
  type OpenAIProviderSettings,
  openai,
  openaiChat,
  openaiEmbedder,
} from './provider.js';
export {
  backoffDelay,
  type CallTarget,
  isRetryableStatus,
  PROVIDER,
  parseRetryAfter,
  type RetryPolicy,
} from './request.js';
export { Semaphore } from './semaphore.js';
