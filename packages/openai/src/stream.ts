/**
 * Streamed chat completions (`stream: true`): the request is retried like any other until a 2xx
 * response arrives; then the Server-Sent Events of the body are read as they come, each delta
 * yielded at once. A failure after the first byte is not retried (the text already given out
 * cannot be taken back): it is thrown as a {@link ProviderError}.
 */
import { type ChatStreamPart, ProviderError, type TokenUsage } from '@grag/core';
import type OpenAI from 'openai';
import { mapFinishReason, parseChatCompletion, parseUsage } from './chat-response.js';
import {
  abortError,
  attemptDeadline,
  type CallTarget,
  classify,
  label,
  oneLine,
  PROVIDER,
  type RequestRuntime,
  withRetries,
} from './request.js';

type StreamParams = OpenAI.Chat.ChatCompletionCreateParamsStreaming;

/** A response whose headers arrived, with what must be undone when its body is done with. */
interface OpenedStream {
  response: Response;
  /** Aborts the request (ends the body). */
  controller: AbortController;
  /** Gives the permit and the caller's abort listener back. */
  close(): void;
}

/** Open the streamed request with the package's retry policy; the permit is held until `close()`. */
function open(
  runtime: RequestRuntime,
  target: CallTarget,
  body: StreamParams,
  signal: AbortSignal | undefined,
): Promise<OpenedStream> {
  return withRetries(runtime, target, signal, async (client, release) => {
    const deadline = attemptDeadline(runtime, signal);
    const { controller } = deadline;
    const close = () => {
      deadline.detach();
      release();
    };
    try {
      const response = await client.chat.completions
        .create(body, { signal: controller.signal, timeout: runtime.timeoutMs, maxRetries: 0 })
        .asResponse();
      return { ok: true, value: { response, controller, close } };
    } catch (error) {
      close();
      if (signal?.aborted) throw abortError(target, signal);
      return {
        ok: false,
        failure: classify(error, 'request', deadline.timedOut(), runtime.timeoutMs, target),
      };
    } finally {
      deadline.clearTimer();
    }
  });
}

/**
 * Stream one chat completion: `text-delta` parts as they arrive, then one `finish` part with the
 * usage (when the server sends it) and the finish reason. Between two pieces of the body at most
 * `runtime.timeoutMs` may pass. A server that answers with a whole JSON completion instead of a
 * stream is read as one delta.
 */
export async function* streamChatCompletion(
  runtime: RequestRuntime,
  target: CallTarget,
  body: StreamParams,
  signal: AbortSignal | undefined,
): AsyncGenerator<ChatStreamPart> {
  const opened = await open(runtime, target, body, signal);
  const { response, controller } = opened;
  let idle: NodeJS.Timeout | undefined;
  let timedOut = false;
  const fail = (error: unknown): never => {
    if (signal?.aborted) throw abortError(target, signal);
    if (ProviderError.isInstance(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const reason = timedOut
      ? `timed out: no data for ${runtime.timeoutMs} ms while streaming the response`
      : `lost the connection while streaming the response (${oneLine(message, 160)})`;
    throw new ProviderError(
      PROVIDER,
      `${label(target)} ${reason} — check the network and the server at baseURL.`,
      {
        retryable: true,
        cause: error,
      },
    );
  };
  try {
    const type = response.headers.get('content-type') ?? '';
    if (!type.includes('text/event-stream') && type.includes('json')) {
      // The server ignored `stream: true` and sent the whole completion.
      const text = await response.text().catch(fail);
      const result = parseChatCompletion(target, text);
      if (result.text !== '') yield { type: 'text-delta', text: result.text };
      yield {
        type: 'finish',
        ...(result.usage ? { usage: result.usage } : {}),
        ...finish(result.finishReason),
      };
      return;
    }
    if (!response.body) throw streamError(target, 'the response has no body');
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const events = new SseReader();
    const state: ChunkState = {};
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error('idle timeout'));
      }, runtime.timeoutMs);
    };
    for (;;) {
      arm();
      const { done, value } = await reader.read().catch(fail);
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (const data of events.push(text, done)) {
        if (data === '[DONE]') {
          yield finishOf(state);
          return;
        }
        const delta = readChunk(target, data, state);
        if (delta !== '') yield { type: 'text-delta', text: delta };
      }
      if (done) break;
    }
    // Some servers end the body without `[DONE]`; a stream that said why it finished is complete.
    if (state.finishReason === undefined) {
      throw streamError(target, 'the stream ended before the response was complete', true);
    }
    yield finishOf(state);
  } finally {
    clearTimeout(idle);
    // Ends the request when the caller stopped early or the stream failed (a no-op once done).
    controller.abort();
    opened.close();
  }
}

/** What the chunks of one stream said besides the text. */
interface ChunkState {
  usage?: TokenUsage;
  finishReason?: ReturnType<typeof mapFinishReason>;
}

function finish(reason: ReturnType<typeof mapFinishReason>): { finishReason?: NonNullable<typeof reason> } {
  return reason === undefined ? {} : { finishReason: reason };
}

function finishOf(state: ChunkState): ChatStreamPart {
  return { type: 'finish', ...(state.usage ? { usage: state.usage } : {}), ...finish(state.finishReason) };
}

function streamError(target: CallTarget, problem: string, retryable = false): ProviderError {
  return new ProviderError(
    PROVIDER,
    `${label(target)} ${problem} — check that baseURL points to an OpenAI-compatible API that streams (or call doGenerate).`,
    { retryable },
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Read one `chat.completion.chunk` (or an error event); returns its text delta. */
function readChunk(target: CallTarget, data: string, state: ChunkState): string {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw streamError(target, `sent a stream event that is not JSON (${JSON.stringify(oneLine(data, 80))})`);
  }
  if (!isRecord(json)) throw streamError(target, 'sent a stream event that is not a JSON object');
  const error = json['error'];
  if (error !== undefined) {
    const message =
      isRecord(error) && typeof error['message'] === 'string' ? error['message'] : JSON.stringify(error);
    throw new ProviderError(
      PROVIDER,
      `${label(target)} failed while streaming: ${oneLine(message)} — check the request and the server logs.`,
      { retryable: false },
    );
  }
  const usage = parseUsage(json['usage']);
  if (usage) state.usage = usage;
  const choices = json['choices'];
  const first: unknown = Array.isArray(choices) ? choices[0] : undefined;
  if (!isRecord(first)) return '';
  const reason = mapFinishReason(first['finish_reason']);
  if (reason !== undefined) state.finishReason = reason;
  const delta = first['delta'];
  const content = isRecord(delta) ? delta['content'] : undefined;
  return typeof content === 'string' ? content : '';
}

/** Splits a Server-Sent Events body into the `data` of each event (multi-line data joined by `\n`). */
export class SseReader {
  #buffer = '';
  #data: string[] = [];

  /** Add decoded text; returns the data of every event it completes (`end`: the body ended). */
  push(text: string, end = false): string[] {
    this.#buffer += text;
    const out: string[] = [];
    for (;;) {
      const nl = this.#buffer.indexOf('\n');
      if (nl < 0) break;
      const line = this.#buffer.slice(0, nl).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(nl + 1);
      this.#line(line, out);
    }
    if (end) {
      if (this.#buffer !== '') this.#line(this.#buffer.replace(/\r$/, ''), out);
      this.#buffer = '';
      this.#line('', out);
    }
    return out;
  }

  #line(line: string, out: string[]): void {
    if (line === '') {
      if (this.#data.length > 0) out.push(this.#data.join('\n'));
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field === 'data') this.#data.push(colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, ''));
  }
}
