/**
 * Calls of the `grag serve` API: the bearer token read from the page's `#token=` fragment, JSON
 * errors turned into one-line messages, and `POST /v1/query` read either as one JSON body or as a
 * Server-Sent Events stream (retrieval, answer deltas, answer, done).
 */
import { parseSse } from './sse.js';
import type { IndexInfo, QueryEvents, QueryResponse, SourceDocument } from './types.js';

/** A failed API call, with the server's error code when it sent one. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The bearer token from a `#token=...` fragment, if the page was opened with one. */
export function tokenFromHash(hash: string): string | undefined {
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token');
  return token ? token : undefined;
}

function headers(token: string | undefined, json: boolean, body = false): HeadersInit {
  const out: Record<string, string> = {
    accept: json ? 'application/json' : 'text/event-stream, application/json',
  };
  // The server takes JSON bodies only (415 for anything else, text/plain included).
  if (body) out['content-type'] = 'application/json';
  if (token) out.authorization = `Bearer ${token}`;
  return out;
}

async function failure(res: Response, what: string): Promise<ApiError> {
  let code = 'http_error';
  let message = `${what} failed with HTTP ${res.status}`;
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string } };
    if (body.error?.message) message = body.error.message;
    if (body.error?.code) code = body.error.code;
  } catch {
    // Not a JSON error body: keep the status line.
  }
  if (res.status === 401) message += ' (open the page as /#token=<token>)';
  return new ApiError(message, code, res.status);
}

/** A client of one server (same origin, or `base` when given). */
export class ApiClient {
  constructor(
    private readonly token: string | undefined,
    private readonly base = '',
  ) {}

  /** `GET /v1/indexes`. */
  async indexes(): Promise<IndexInfo[]> {
    const res = await fetch(`${this.base}/v1/indexes`, { headers: headers(this.token, true) });
    if (!res.ok) throw await failure(res, 'Listing the indexes');
    return ((await res.json()) as { indexes: IndexInfo[] }).indexes;
  }

  /** `GET /v1/documents/:id?method=`. */
  async document(id: string, method: string): Promise<SourceDocument> {
    const url = `${this.base}/v1/documents/${encodeURIComponent(id)}?method=${encodeURIComponent(method)}`;
    const res = await fetch(url, { headers: headers(this.token, true) });
    if (!res.ok) throw await failure(res, `Opening document "${id}"`);
    return (await res.json()) as SourceDocument;
  }

  /**
   * `POST /v1/query`, with an answer streamed when `answer` is asked and the server streams:
   * `events` hear the retrieval as soon as it is known and every answer delta; the promise
   * resolves to the whole response.
   */
  async query(
    body: { question: string; method: string; budget?: number; topK?: number },
    events: QueryEvents,
    options: { answer: boolean; signal?: AbortSignal },
  ): Promise<QueryResponse> {
    const { answer, signal } = options;
    const res = await fetch(`${this.base}/v1/query`, {
      method: 'POST',
      headers: headers(this.token, false, true),
      body: JSON.stringify({ ...body, answer, stream: answer }),
      ...(signal ? { signal } : {}),
    });
    if (!res.ok) throw await failure(res, `Query of ${body.method}`);
    const type = res.headers.get('content-type') ?? '';
    if (!type.includes('text/event-stream') || !res.body) {
      const json = (await res.json()) as QueryResponse;
      events.onRetrieval(json);
      return json;
    }
    return readQueryStream(res.body, events);
  }
}

async function readQueryStream(
  body: ReadableStream<Uint8Array>,
  events: QueryEvents,
): Promise<QueryResponse> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let response: QueryResponse | undefined;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    buffer += done ? decoder.decode() + '\n\n' : decoder.decode(value, { stream: true });
    const parsed = parseSse(buffer);
    buffer = parsed.rest;
    for (const { event, data } of parsed.events) {
      const payload = JSON.parse(data) as Record<string, unknown>;
      if (event === 'retrieval') {
        response = payload as unknown as QueryResponse;
        events.onRetrieval(response);
      } else if (event === 'delta') {
        const chunk = String(payload.text ?? '');
        text += chunk;
        events.onDelta(chunk);
      } else if (event === 'answer' && response) {
        response.answer = payload as unknown as QueryResponse['answer'];
      } else if (event === 'error') {
        const error = (payload.error ?? payload) as { code?: string; message?: string };
        throw new ApiError(error.message ?? 'The query failed.', error.code ?? 'stream_error', 200);
      } else if (event === 'done') {
        // The server ends the stream after `done`; nothing after it is read.
        reader.releaseLock();
        return finish(response, text);
      }
    }
    if (done) return finish(response, text);
  }
}

function finish(response: QueryResponse | undefined, streamed: string): QueryResponse {
  if (!response)
    throw new ApiError(
      'The server ended the answer stream before sending the retrieval.',
      'stream_error',
      200,
    );
  if (!response.answer && streamed) response.answer = { text: streamed, citations: [] };
  return response;
}
