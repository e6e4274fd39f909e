import type { ChatResult, TokenUsage } from '@grag/core';

/** Maps the AI SDK's finish reason onto the contract's values. */
export function mapFinishReason(reason: unknown): ChatResult['finishReason'] {
  switch (reason) {
    case undefined:
    case null:
      return undefined;
    case 'stop':
    case 'length':
    case 'content-filter':
    case 'error':
      return reason;
    default:
      return 'other';
  }
}

/**
 * The contract's usage from the AI SDK's `LanguageModelUsage`, or `undefined` when the provider
 * did not report both token counts (the Meter then counts them with its tokenizer).
 */
export function mapUsage(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const { inputTokens, outputTokens } = usage as { inputTokens?: unknown; outputTokens?: unknown };
  if (typeof inputTokens !== 'number' || !Number.isFinite(inputTokens)) return undefined;
  if (typeof outputTokens !== 'number' || !Number.isFinite(outputTokens)) return undefined;
  return { inputTokens, outputTokens };
}
