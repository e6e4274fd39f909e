/**
 * A small OpenAI-compatible HTTP server for tests, on 127.0.0.1 and a free port. It records every
 * request, counts requests in flight, and answers from per-endpoint scripts before falling back to
 * a well-formed default answer.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, beforeEach } from 'vitest';
import { createOpenAI, type OpenAIProvider, type OpenAIProviderSettings } from '../src/index.js';
import { type Endpoint, endpointOf, LocalServer } from './local-server.js';

export type { Endpoint };

export interface FakeRequest {
  endpoint: Endpoint | 'other';
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are inspected field by field in tests
  body: any;
  /** `performance.now()` when the request body had arrived. */
  receivedAt: number;
}

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent verbatim (content type `text/plain` unless `headers` say otherwise). */
  raw?: string;
  /** Wait before answering. */
  delayMs?: number;
  /** Never answer (`'headers'`), or send headers and half a body and stop (`'body'`). */
  stall?: 'headers' | 'body';
  /** Answer with Server-Sent Events (`text/event-stream`, chunked) instead of one body. */
  sse?: FakeStream;
}

/** A streamed reply: one `data:` event per entry, then how the stream ends. */
export interface FakeStream {
  /** Each is sent as `data: <JSON>` (a string is sent as it is), one event per entry. */
  events: unknown[];
  /** Wait before each event. @default 0 */
  delayMs?: number;
  /**
   * `'done'`: `data: [DONE]` and the end of the body; `'end'`: the end of the body, no `[DONE]`;
   * `'cut'`: the connection is destroyed; `'hang'`: nothing more is sent. @default 'done'
   */
  end?: 'done' | 'end' | 'cut' | 'hang';
}

/**
 * OpenAI `chat.completion.chunk` events streaming `pieces`: a role chunk, one chunk per piece, a
 * chunk with the finish reason, and (with `usage`) the usage chunk with no choices.
 */
export function chunkEvents(
  pieces: string[],
  options: { finishReason?: string; usage?: { prompt_tokens: number; completion_tokens: number } } = {},
): unknown[] {
  const chunk = (delta: object, finish: string | null) => ({
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'test',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '' }, null)];
  for (const piece of pieces) events.push(chunk({ content: piece }, null));
  events.push(chunk({}, options.finishReason ?? 'stop'));
  if (options.usage) {
    const { prompt_tokens, completion_tokens } = options.usage;
    events.push({
      id: 'chatcmpl-test',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'test',
      choices: [],
      usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
    });
  }
  return events;
}

/** The default chat answer: echoes the last user message. */
// biome-ignore lint/suspicious/noExplicitAny: request body
function defaultChat(body: any): FakeReply {
  const last = body?.messages?.at(-1)?.content ?? '';
  if (body?.stream === true) {
    // The echo in pieces of a word each, with usage when the request asks for it.
    const pieces = `echo: ${last}`.split(/(?<= )/);
    const usage = body.stream_options?.include_usage
      ? { prompt_tokens: 11, completion_tokens: 7 }
      : undefined;
    return { sse: { events: chunkEvents(pieces, usage ? { usage } : {}) } };
  }
  return {
    json: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 0,
      model: body?.model,
      choices: [
        { index: 0, message: { role: 'assistant', content: `echo: ${last}` }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    },
  };
}

export class FakeOpenAIServer extends LocalServer {
  readonly requests: FakeRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;
  /** Vector for one embedding input; the default is `[input length, position in the batch, 1]`. */
  embed: (input: string, position: number) => number[] = (input, position) => [input.length, position, 1];
  readonly #scripts: Record<Endpoint, FakeReply[]> = { chat: [], embeddings: [] };
  protected handle(req: IncomingMessage, res: ServerResponse, text: string): void {
    const path = req.url ?? '';
    const request: FakeRequest = {
      endpoint: endpointOf(path) ?? 'other',
      method: req.method ?? '',
      path,
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
      receivedAt: performance.now(),
    };
    this.requests.push(request);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('close', () => this.inFlight--);
    const reply =
      request.endpoint === 'other'
        ? { status: 404, json: { error: { message: 'no such route' } } }
        : this.#next(request);
    if (reply.delayMs) this.later(reply.delayMs, () => this.#send(res, reply));
    else this.#send(res, reply);
  }

  /** Requests of one endpoint, in arrival order. */
  requestsTo(endpoint: Endpoint): FakeRequest[] {
    return this.requests.filter((r) => r.endpoint === endpoint);
  }

  /** Queue replies for the next requests to `endpoint`; later requests get the default answer. */
  script(endpoint: Endpoint, ...replies: FakeReply[]): this {
    this.#scripts[endpoint].push(...replies);
    return this;
  }

  #next(request: FakeRequest): FakeReply {
    const endpoint = request.endpoint as Endpoint;
    const scripted = this.#scripts[endpoint].shift();
    if (scripted) return scripted;
    if (endpoint === 'chat') return defaultChat(request.body);
    const inputs: string[] = Array.isArray(request.body?.input) ? request.body.input : [request.body?.input];
    return {
      json: {
        object: 'list',
        model: request.body?.model,
        data: inputs.map((input, index) => ({
          object: 'embedding',
          index,
          embedding: this.embed(input, index),
        })),
        usage: { prompt_tokens: inputs.length * 2, total_tokens: inputs.length * 2 },
      },
    };
  }

  #send(res: ServerResponse, reply: FakeReply): void {
    if (res.destroyed) return;
    if (reply.stall === 'headers') return;
    if (reply.sse) {
      this.#stream(res, reply.sse, reply.headers);
      return;
    }
    const status = reply.status ?? 200;
    const isJson = reply.json !== undefined;
    const body = isJson ? JSON.stringify(reply.json) : (reply.raw ?? '');
    res.writeHead(status, {
      'content-type': isJson ? 'application/json' : 'text/plain',
      ...reply.headers,
    });
    if (reply.stall === 'body') {
      res.write(body.slice(0, Math.max(1, Math.floor(body.length / 2))));
      return;
    }
    res.end(body);
  }

  #stream(res: ServerResponse, stream: FakeStream, headers: Record<string, string> = {}): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
    res.flushHeaders();
    const events = [...stream.events];
    const next = () => {
      if (res.destroyed) return;
      const event = events.shift();
      if (event !== undefined) {
        res.write(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`);
        later(next);
        return;
      }
      const end = stream.end ?? 'done';
      if (end === 'done') res.end('data: [DONE]\n\n');
      else if (end === 'end') res.end();
      else if (end === 'cut') res.socket?.destroy();
    };
    const later = (fn: () => void) => {
      if (!stream.delayMs) {
        setImmediate(fn);
        return;
      }
      this.later(stream.delayMs, fn);
    };
    later(next);
  }
}

/** Start a fake server on 127.0.0.1 and a free port. */
export function startFakeServer(): Promise<FakeOpenAIServer> {
  return new FakeOpenAIServer().listen();
}

/**
 * A fresh fake server for every test of the file, handed to `use` before the test and closed after
 * it; returns a provider factory that talks to the current one (API key `sk-test`, 1 ms retry
 * delays, `settings` over them).
 */
export function useFakeServer(
  use: (server: FakeOpenAIServer) => void,
): (settings?: OpenAIProviderSettings) => OpenAIProvider {
  let current: FakeOpenAIServer | undefined;
  beforeEach(async () => {
    current = await startFakeServer();
    use(current);
  });
  afterEach(async () => {
    await current?.close();
  });
  return (settings = {}) =>
    createOpenAI({ baseURL: current!.baseURL, apiKey: 'sk-test', retryBaseDelayMs: 1, ...settings });
}

/** What `promise` rejects with; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}
