/**
 * A small OpenAI-compatible HTTP server for the end-to-end tests, on 127.0.0.1 and a free port:
 * `/v1/chat/completions` (plain or streamed as Server-Sent Events) and `/v1/embeddings`. It records
 * every request, answers from the handlers a test sets, and reports usage the way OpenAI does
 * (one token per word here, so tests can compute what the Meter should count).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  path: string;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are inspected field by field in tests
  body: any;
  /** Usage the server reported for it: `[prompt_tokens, completion_tokens]`. */
  usage?: [number, number];
}

/** An error reply: status, message, and extra headers. */
export interface ErrorReply {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

export interface ChatRequest {
  model: string;
  messages: {
    role: string;
    content: string | null;
    tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    tool_call_id?: string;
  }[];
  tools?: { type: 'function'; function: { name: string; description?: string; parameters: unknown } }[];
  [key: string]: unknown;
}

/** A reply that calls tools instead of writing text (plain, not streamed, replies only). */
export interface ToolCallsReply {
  toolCalls: { id: string; name: string; arguments: unknown }[];
}

export interface TestServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseURL: string;
  requests: SeenRequest[];
  /** The chat completions' text for a request, or the tools it calls. */
  chat: (request: ChatRequest) => string | ToolCallsReply;
  /** The vector of one embedding input. */
  embed: (input: string) => number[];
  /** Replies sent before the handlers answer, one per request, in order. */
  failures: ErrorReply[];
  /** Milliseconds to wait before answering. */
  delayMs: number;
  /** Requests to one path (`'/v1/chat/completions'` or `'/v1/embeddings'`). */
  seen(path: string): SeenRequest[];
  close(): Promise<void>;
}

/** The text of a message's content: a string, or the text parts of an array of parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as { text?: unknown }[])
    .map((part) => (typeof part?.text === 'string' ? part.text : ''))
    .join(' ');
}

/** Words of a text: what this server counts as tokens. */
export function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

export async function startServer(): Promise<TestServer> {
  const state = {
    requests: [] as SeenRequest[],
    chat: (_: ChatRequest): string | ToolCallsReply => 'ok',
    embed: (input: string) => [input.length, 1],
    failures: [] as ErrorReply[],
    delayMs: 0,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const seen: SeenRequest = {
        path: req.url ?? '',
        headers: req.headers,
        body: raw ? JSON.parse(raw) : undefined,
      };
      state.requests.push(seen);
      if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
      if (res.destroyed) return;
      const failure = state.failures.shift();
      if (failure) {
        res.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
        res.end(JSON.stringify({ error: { message: failure.message, type: 'test_error' } }));
        return;
      }
      if (seen.path === '/v1/chat/completions') {
        const body = seen.body as ChatRequest;
        const reply = state.chat(body);
        const calls = typeof reply === 'string' ? undefined : reply.toolCalls;
        const text = typeof reply === 'string' ? reply : '';
        const prompt = body.messages.reduce((n, m) => n + words(contentText(m.content)), 0);
        seen.usage = [prompt, words(text)];
        const usage = {
          prompt_tokens: prompt,
          completion_tokens: words(text),
          total_tokens: prompt + words(text),
        };
        if (body.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          const chunk = (delta: object, finish: string | null, extra: object = {}) =>
            `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
          res.write(chunk({ role: 'assistant', content: '' }, null));
          for (const piece of text.match(/\S+\s*/g) ?? []) res.write(chunk({ content: piece }, null));
          res.write(chunk({}, 'stop'));
          res.write(
            `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [], usage })}\n\n`,
          );
          res.end('data: [DONE]\n\n');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            created: 0,
            model: body.model,
            choices: [
              {
                index: 0,
                message: calls
                  ? {
                      role: 'assistant',
                      content: null,
                      tool_calls: calls.map((call) => ({
                        id: call.id,
                        type: 'function',
                        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                      })),
                    }
                  : { role: 'assistant', content: text },
                finish_reason: calls ? 'tool_calls' : 'stop',
              },
            ],
            usage,
          }),
        );
        return;
      }
      if (seen.path === '/v1/embeddings') {
        const input = seen.body.input as string[];
        const tokens = input.reduce((n, v) => n + words(v), 0);
        seen.usage = [tokens, 0];
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            model: seen.body.model,
            data: input.map((v, index) => ({ object: 'embedding', index, embedding: state.embed(v) })),
            usage: { prompt_tokens: tokens, total_tokens: tokens },
          }),
        );
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${seen.path}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // The state itself is the server's face: setting `chat`, `embed`, `failures` or `delayMs` on it
  // changes what the handlers above read.
  const api: TestServer = Object.assign(state, {
    baseURL: `http://127.0.0.1:${port}/v1`,
    seen: (path: string) => state.requests.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return api;
}
