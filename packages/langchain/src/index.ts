/**
 * `@grag/langchain`: grag in LangChain.js and LangChain.js in grag. {@link GragRetriever} is a
 * LangChain `BaseRetriever` over any grag index, {@link loadGragIndex} opens a saved index with the
 * vector index it was built with; {@link fromLangChainChat} and
 * {@link fromLangChainEmbeddings} make LangChain chat models and embeddings grag providers.
 *
 * @packageDocumentation
 */
export {
  fromLangChainChat,
  LangChainChatModel,
  type LangChainChatModelLike,
  type LangChainChatSettings,
  messageFinishReason,
  messageText,
  messageUsage,
  toLangChainMessage,
} from './chat.js';
export {
  DIMENSION_PROBE_TEXT,
  fromLangChainEmbeddings,
  LANGCHAIN_EMBEDDING_BATCH_SIZE,
  LangChainEmbedder,
  type LangChainEmbeddingsLike,
  type LangChainEmbeddingsSettings,
  probeLangChainEmbeddings,
} from './embeddings.js';
export { loadGragIndex } from './load.js';
export {
  type GragDocumentMetadata,
  type GragRetrieveOptions,
  GragRetriever,
  type GragRetrieverInput,
  itemToDocument,
} from './retriever.js';
