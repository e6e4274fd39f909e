import { AbortError, type ChatStreamPart } from '@grag/core';
import { streamText } from 'ai';
import { type CallTarget, label, mapAiSdkError } from './errors.js';
import { mapFinishReason, mapUsage } from './usage.js';

/** The `streamText` settings of one call (as built by `AiSdkChatModel.callSettings`). */
type StreamSettings = Omit<Parameters<typeof streamText>[0], 'abortSignal' | 'onError'>;

/**
 * Stream one call through the AI SDK's `streamText`: `text-delta` parts as the text arrives, then
 * one `finish` part with usage and finish reason. An error the AI SDK reports in the stream is
 * thrown from the iteration, mapped like `doGenerate`'s (`mapAiSdkError`); the caller's `signal`
 * aborting throws `AbortError`. Stopping the iteration early aborts the request.
 */
export async function* streamCall(
  settings: StreamSettings,
  target: CallTarget,
  signal: AbortSignal | undefined,
): AsyncGenerator<ChatStreamPart> {
  if (signal?.aborted) throw new AbortError(`${label(target)} was aborted.`, { cause: signal.reason });
  // Ends the request when the consumer stops reading before the stream is done.
  const stop = new AbortController();
  const abortSignal = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  try {
    const result = streamText({
      ...settings,
      abortSignal,
      // Errors arrive as stream parts and are thrown from here; the AI SDK's default logs them.
      onError: () => {},
    } as Parameters<typeof streamText>[0]);
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        if (part.text !== '') yield { type: 'text-delta', text: part.text };
      } else if (part.type === 'error') {
        throw part.error;
      } else if (part.type === 'abort') {
        throw new DOMException(part.reason ?? 'The stream was aborted.', 'AbortError');
      } else if (part.type === 'finish') {
        const usage = mapUsage(part.totalUsage);
        const finishReason = mapFinishReason(part.finishReason);
        yield { type: 'finish', ...(usage ? { usage } : {}), ...(finishReason ? { finishReason } : {}) };
        return;
      }
    }
    // A stream that ended without its finish part.
    yield { type: 'finish' };
  } catch (error) {
    throw mapAiSdkError(error, target, signal);
  } finally {
    stop.abort();
  }
}
