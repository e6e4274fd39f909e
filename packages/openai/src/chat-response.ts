/**
 * Reading a `/chat/completions` response: text, usage and finish reason, shared by the plain call
 * (`chat.ts`) and the streamed one (`stream.ts`).
 */
import type { ChatResult, TokenUsage } from '@grag/core';
import { type CallTarget, malformedResponse, parseJsonBody } from './request.js';

/** Maps an OpenAI `finish_reason` onto the contract's values. */
export function mapFinishReason(reason: unknown): ChatResult['finishReason'] {
  switch (reason) {
    case null:
    case undefined:
      return undefined;
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** @internal The usage of a response body, when it has `prompt_tokens` and `completion_tokens`. */
export function parseUsage(usage: unknown): TokenUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const input = usage['prompt_tokens'];
  const output = usage['completion_tokens'];
  if (typeof input !== 'number' || typeof output !== 'number') return undefined;
  return { inputTokens: input, outputTokens: output };
}

/**
 * Read text, usage and finish reason from a `/chat/completions` response body. Throws
 * `ProviderError`: `retryable: true` for a body that is not JSON, `false` for JSON of the wrong shape.
 */
export function parseChatCompletion(target: CallTarget, raw: string): ChatResult {
  const json = parseJsonBody(target, raw);
  if (!isRecord(json)) throw malformedResponse(target, 'not a JSON object', raw);
  const choices = json['choices'];
  if (!Array.isArray(choices)) throw malformedResponse(target, 'no `choices` array', raw);
  const first: unknown = choices[0];
  if (!isRecord(first)) throw malformedResponse(target, 'empty `choices`', raw);
  const message = first['message'];
  if (!isRecord(message)) throw malformedResponse(target, 'no `choices[0].message`', raw);
  const content = message['content'];
  if (content !== null && content !== undefined && typeof content !== 'string') {
    throw malformedResponse(target, '`choices[0].message.content` is not a string', raw);
  }
  const result: ChatResult = { text: content ?? '' };
  const usage = parseUsage(json['usage']);
  if (usage) result.usage = usage;
  const finishReason = mapFinishReason(first['finish_reason']);
  if (finishReason) result.finishReason = finishReason;
  return result;
}
