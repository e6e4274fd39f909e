/**
 * A fault-injecting OpenAI-compatible HTTP server for tests, on 127.0.0.1 and a free port.
 *
 * It serves `POST /v1/chat/completions` and `POST /v1/embeddings`. Before answering, it asks its
 * fault plan what to do with the request: answer normally, or inject a fault — a 429 (with
 * `Retry-After`, `retry-after-ms` or neither), a 5xx, a connection reset (before the headers or in
 * the middle of the body), a stall (no headers, or half a body and then nothing), a 200 whose body
 * is not JSON, or a 200 whose body stops short of its `Content-Length`. Normal answers come from
 * responders the test passes, so they depend on the request only, never on the faults before them.
 *
 * Fault plans are plain functions of the request (its arrival index, its content key and how many
 * times that content was sent before); {@link seededFaults} draws a deterministic random schedule
 * from a seed, {@link faultSequence} scripts the next requests, {@link rateLimitStorm} answers a
 * window of arrivals with 429s. Every request is recorded with the fault it got.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { hashedBagOfWords } from '@grag/core/kit';
import { type Endpoint, endpointOf, LocalServer } from './local-server.js';

export type FaultEndpoint = Endpoint;

/** What the server does instead of answering. */
export type Fault =
  /** HTTP 429; `retryAfterSeconds` is sent as `Retry-After`, `retryAfterMs` as `retry-after-ms`. */
  | { kind: 'rate-limit'; retryAfterSeconds?: number; retryAfterMs?: number }
  /** An HTTP error status (500, 502, 503, …) with an OpenAI-style error body. */
  | { kind: 'server-error'; status: number }
  /** TCP reset: before anything is sent, or after the headers and half the body. */
  | { kind: 'reset'; at: 'before-headers' | 'mid-body' }
  /** Never finish: send nothing, or the headers and half the body. The client must time out. */
  | { kind: 'stall'; at: 'before-headers' | 'mid-body' }
  /** HTTP 200 with a complete body that is not JSON: the answer without its last byte, or an HTML page. */
  | { kind: 'malformed'; variant: 'cut-json' | 'html' }
  /** HTTP 200 whose `Content-Length` is larger than what is sent before the connection closes. */
  | { kind: 'truncated' };

export type FaultKind = Fault['kind'];

/** What a fault plan knows about a request. */
export interface FaultRequestInfo {
  /** Arrival order over the server's life, from 0. */
  index: number;
  endpoint: FaultEndpoint;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are inspected field by field
  body: any;
  /** Endpoint and a hash of the body: equal for every attempt of one call. */
  key: string;
  /** How many requests with the same key arrived before this one (0 for the first attempt). */
  attempt: number;
}

/** Decides the fault of a request; `undefined` answers it normally. */
export type FaultPlan = (request: FaultRequestInfo) => Fault | undefined;

/** A recorded request. */
export interface FaultRecord extends FaultRequestInfo {
  path: string;
  /** `performance.now()` when the body had arrived. */
  receivedAt: number;
  /** The injected fault, or `undefined` when the request was answered normally. */
  fault: Fault | undefined;
  /** The chat text or the number of vectors of a normal answer. */
  answer?: string | number;
  /** Why the responder could not answer (the request got a 400). */
  responderError?: string;
}

/** A chat message as sent by the client. */
export interface WireMessage {
  role: string;
  content: string;
}

/** Answers a chat request that is served normally: the assistant's text. */
export type ChatResponder = (messages: WireMessage[], request: FaultRequestInfo) => string;

/** The vector of one embedding input. */
export type EmbeddingResponder = (input: string) => ArrayLike<number>;

export interface FaultServerOptions {
  /** @default echoes the last message: `echo: <content>` */
  chat?: ChatResponder;
  /** @default `hashedBagOfWords(input, dimensions)` from `@grag/core` */
  embed?: EmbeddingResponder;
  /** Length of the default embeddings. @default 16 */
  dimensions?: number;
  /** @default no faults */
  faults?: FaultPlan;
}

// ---------------------------------------------------------------------------------------------
// Fault plans
// ---------------------------------------------------------------------------------------------

/** A deterministic number in `[0, 1)` from a seed and any strings (SHA-256 based). */
export function seededUnit(seed: number, ...parts: (string | number)[]): number {
  const digest = createHash('sha256')
    .update(`${seed}\u0000${parts.join('\u0000')}`)
    .digest();
  return digest.readUInt32BE(0) / 0x1_0000_0000;
}

/** Relative weights of the fault kinds drawn by {@link seededFaults}. */
export type FaultWeights = Partial<Record<FaultKind, number>>;

export interface SeededFaultOptions {
  seed: number;
  /** Probability that an attempt gets a fault. */
  rate: number;
  /** Relative weight per fault kind. @default every kind alike */
  weights?: FaultWeights;
  /**
   * Attempts of one call (same key) that may fail; later attempts are answered normally, so a
   * client that retries more often than this always gets through. @default 3
   */
  maxFaultsPerCall?: number;
  /** `Retry-After` in seconds of a 429 that sends it. @default 0.02 */
  retryAfterSeconds?: number;
  /** `retry-after-ms` of a 429 that sends it. @default 15 */
  retryAfterMs?: number;
}

const ALL_KINDS: FaultKind[] = ['rate-limit', 'server-error', 'reset', 'stall', 'malformed', 'truncated'];

/**
 * A random but deterministic schedule: whether attempt `n` of the call with key `k` fails, and
 * how, depends only on `(seed, k, n)` — not on arrival order or timing. Parameters (which 5xx,
 * which `Retry-After` header, where a reset or stall happens) are drawn the same way.
 */
export function seededFaults(options: SeededFaultOptions): FaultPlan {
  const { seed, rate } = options;
  const maxFaults = options.maxFaultsPerCall ?? 3;
  const weights = ALL_KINDS.map((kind) => [kind, options.weights?.[kind] ?? 1] as const).filter(
    ([, w]) => w > 0,
  );
  const total = weights.reduce((sum, [, w]) => sum + w, 0);
  return ({ key, attempt }) => {
    if (attempt >= maxFaults || total === 0) return undefined;
    if (seededUnit(seed, key, attempt, 'fault?') >= rate) return undefined;
    let pick = seededUnit(seed, key, attempt, 'kind') * total;
    let kind: FaultKind = weights[weights.length - 1]![0];
    for (const [k, w] of weights) {
      if (pick < w) {
        kind = k;
        break;
      }
      pick -= w;
    }
    const choice = seededUnit(seed, key, attempt, 'detail');
    switch (kind) {
      case 'rate-limit':
        return choice < 1 / 3
          ? { kind, retryAfterSeconds: options.retryAfterSeconds ?? 0.02 }
          : choice < 2 / 3
            ? { kind, retryAfterMs: options.retryAfterMs ?? 15 }
            : { kind };
      case 'server-error':
        return { kind, status: [500, 502, 503][Math.floor(choice * 3)]! };
      case 'reset':
      case 'stall':
        return { kind, at: choice < 0.5 ? 'before-headers' : 'mid-body' };
      case 'malformed':
        return { kind, variant: choice < 0.5 ? 'cut-json' : 'html' };
      case 'truncated':
        return { kind };
    }
  };
}

/** Faults for the next requests in arrival order (`undefined` entries are answered normally). */
export function faultSequence(...faults: (Fault | undefined)[]): FaultPlan {
  let next = 0;
  return () => faults[next++];
}

/**
 * A 429 storm: the `count` requests arriving from arrival index `from` on are all answered 429,
 * with the given `Retry-After` / `retry-after-ms` (or neither).
 */
export function rateLimitStorm(options: {
  from: number;
  count: number;
  retryAfterSeconds?: number;
  retryAfterMs?: number;
}): FaultPlan {
  const { from, count } = options;
  const fault: Fault = { kind: 'rate-limit' };
  if (options.retryAfterSeconds !== undefined) fault.retryAfterSeconds = options.retryAfterSeconds;
  if (options.retryAfterMs !== undefined) fault.retryAfterMs = options.retryAfterMs;
  return ({ index }) => (index >= from && index < from + count ? { ...fault } : undefined);
}

/** The first plan that injects a fault wins. */
export function combineFaults(...plans: FaultPlan[]): FaultPlan {
  return (request) => {
    for (const plan of plans) {
      const fault = plan(request);
      if (fault) return fault;
    }
    return undefined;
  };
}

// ---------------------------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------------------------

const echo: ChatResponder = (messages) => `echo: ${messages.at(-1)?.content ?? ''}`;

export class FaultServer extends LocalServer {
  /** Every request, in arrival order. */
  readonly records: FaultRecord[] = [];
  /** Fault plan; may be replaced between calls. */
  faults: FaultPlan;
  readonly #chat: ChatResponder;
  readonly #embed: EmbeddingResponder;
  readonly #attempts = new Map<string, number>();

  constructor(options: FaultServerOptions = {}) {
    super();
    const dimensions = options.dimensions ?? 16;
    this.#chat = options.chat ?? echo;
    this.#embed = options.embed ?? ((input) => hashedBagOfWords(input, dimensions));
    this.faults = options.faults ?? (() => undefined);
  }

  /** Records of one endpoint. */
  recordsOf(endpoint: FaultEndpoint): FaultRecord[] {
    return this.records.filter((r) => r.endpoint === endpoint);
  }

  /** Requests per outcome: `'ok'` or a fault kind. */
  outcomes(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of this.records) {
      const name = r.fault?.kind ?? 'ok';
      counts[name] = (counts[name] ?? 0) + 1;
    }
    return counts;
  }

  protected handle(req: IncomingMessage, res: ServerResponse, text: string): void {
    const path = req.url ?? '';
    const endpoint = endpointOf(path);
    if (req.method !== 'POST' || endpoint === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
      return;
    }
    const key = `${endpoint}:${createHash('sha256').update(text).digest('hex')}`;
    const attempt = this.#attempts.get(key) ?? 0;
    this.#attempts.set(key, attempt + 1);
    const info: FaultRequestInfo = {
      index: this.records.length,
      endpoint,
      body: text ? JSON.parse(text) : undefined,
      key,
      attempt,
    };
    const fault = this.faults(info);
    const record: FaultRecord = { ...info, path, receivedAt: performance.now(), fault };
    this.records.push(record);
    try {
      if (fault) this.#inject(fault, info, res);
      else this.#answer(info, record, res);
    } catch (error) {
      // A responder that cannot answer is a bug of the test: fail the call at once (400 is not
      // retried) with the reason, rather than crash the server.
      record.responderError = error instanceof Error ? error.message : String(error);
      if (res.headersSent) res.destroy();
      else {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fault server: ${record.responderError}` } }));
      }
    }
  }

  /** The JSON body of a normal answer. */
  #body(info: FaultRequestInfo, record?: FaultRecord): string {
    if (info.endpoint === 'chat') {
      const messages: WireMessage[] = Array.isArray(info.body?.messages) ? info.body.messages : [];
      const content = this.#chat(messages, info);
      if (record) record.answer = content;
      return JSON.stringify({
        id: `chatcmpl-${info.index}`,
        object: 'chat.completion',
        created: 0,
        model: info.body?.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
    }
    const inputs: string[] = Array.isArray(info.body?.input) ? info.body.input : [info.body?.input];
    if (record) record.answer = inputs.length;
    return JSON.stringify({
      object: 'list',
      model: info.body?.model,
      data: inputs.map((input, index) => ({
        object: 'embedding',
        index,
        embedding: Array.from(this.#embed(String(input))),
      })),
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    });
  }

  #answer(info: FaultRequestInfo, record: FaultRecord, res: ServerResponse): void {
    const body = this.#body(info, record);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  #inject(fault: Fault, info: FaultRequestInfo, res: ServerResponse): void {
    const socket = res.socket as Socket | null;
    switch (fault.kind) {
      case 'rate-limit': {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
        if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs);
        res.writeHead(429, headers);
        res.end(JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', code: null } }));
        return;
      }
      case 'server-error':
        res.writeHead(fault.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `injected ${fault.status}`, type: 'server_error' } }));
        return;
      case 'reset': {
        if (fault.at === 'before-headers') {
          socket?.resetAndDestroy();
          return;
        }
        const body = this.#body(info);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.write(body.slice(0, Math.floor(body.length / 2)));
        // Let the headers and the half body reach the client before the reset discards the rest.
        this.later(20, () => socket?.resetAndDestroy());
        return;
      }
      case 'stall': {
        if (fault.at === 'before-headers') return;
        const body = this.#body(info);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.write(body.slice(0, Math.floor(body.length / 2)));
        return;
      }
      case 'malformed': {
        if (fault.variant === 'html') {
          const page = '<html><body><h1>502 Bad Gateway</h1></body></html>';
          res.writeHead(200, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(page) });
          res.end(page);
          return;
        }
        // Complete as far as HTTP goes, but the JSON lacks its closing brace.
        const body = this.#body(info).slice(0, -1);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
        return;
      }
      case 'truncated': {
        const body = this.#body(info);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.write(body.slice(0, Math.floor(body.length / 2)));
        // A clean close (FIN) with fewer bytes than Content-Length promised.
        this.later(20, () => socket?.end());
        return;
      }
    }
  }
}

/** Start a fault server on 127.0.0.1 and a free port. */
export function startFaultServer(options: FaultServerOptions = {}): Promise<FaultServer> {
  return new FaultServer(options).listen();
}
