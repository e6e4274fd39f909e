/**
 * What the server tests share: a few hand-written documents, offline indexes of them, a scripted
 * graph method and a scripted streaming chat model, a raw HTTP client (paths sent exactly as
 * written, `../` included), an SSE reader, and a server started before a file's tests.
 */
import type {
  BuildContext,
  ChatCallOptions,
  ChatModel,
  ChatStreamPart,
  Document,
  Method,
  Retrieval,
} from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { bm25Rag, denseRag } from '@grag/naive-rag';
import { createOfflineProviders } from '@grag/offline';
import { afterAll, beforeAll } from 'vitest';
import { type RunningServer, type ServedIndexInput, type ServeOptions, serve } from '../src/index.js';

export const DOCS: Document[] = [
  {
    id: 'kessler',
    title: 'Kessler Shipyard',
    text: 'The Kessler Shipyard was founded in 1881 by Anton and Jakob Kessler. It built the research vessel Aurora in 1994.',
  },
  {
    id: 'orsa',
    title: 'Orsa',
    text: 'Orsa is an island across the Veskan Strait. The Lindqvist Institute on Orsa owns the research vessel Aurora.',
  },
  {
    id: 'lindqvist',
    title: 'Lindqvist Institute',
    text: 'The Lindqvist Institute is a marine research institute. Its director is Ilse Marren, a marine biologist.',
  },
];

/** A fresh offline context (each index gets its own: a fitted embedder is per index). */
export function offlineContext(): BuildContext {
  return createBuildContext(createOfflineProviders());
}

/** BM25 and dense indexes of {@link DOCS}, one unit per document. */
export async function buildIndexes() {
  const bm25 = await bm25Rag.build(DOCS, offlineContext(), { chunking: 'document' });
  const dense = await denseRag.build(DOCS, offlineContext(), { chunking: 'document' });
  return { bm25, dense };
}

/**
 * A graph "method" with a fixed retrieval: two chunk items, a subgraph with edge labels and the
 * entity it started from, so the test knows exactly what the server must pass through.
 */
export const scriptedGraph: Method<{ calls: string[] }> = {
  name: 'scripted-graph',
  description: 'A scripted graph retrieval for tests.',
  capabilities: { uses: [] },
  formatVersion: 1,
  async build() {
    return { calls: [] };
  },
  async retrieve(index, query): Promise<Retrieval> {
    index.calls.push(query);
    return {
      context: '[orsa] Orsa is an island.\n\n[lindqvist] Its director is Ilse Marren.',
      tokens: 15,
      items: [
        {
          id: 'orsa',
          kind: 'chunk',
          text: 'Orsa is an island.',
          score: 0.9,
          source: { chunkIds: ['orsa'], docIds: ['orsa'] },
        },
        {
          id: 'lindqvist',
          kind: 'chunk',
          text: 'Its director is Ilse Marren.',
          score: 0.5,
          source: { chunkIds: ['lindqvist'], docIds: ['lindqvist'] },
        },
      ],
      subgraph: {
        nodes: ['entity:orsa', 'entity:lindqvist institute', 'chunk:orsa'],
        edges: [
          ['entity:orsa', 'entity:lindqvist institute'],
          ['entity:orsa', 'chunk:orsa'],
        ],
        edgeLabels: ['located on', null],
        entryPoints: ['entity:orsa', 'entity:not-in-the-subgraph'],
      } as Retrieval['subgraph'],
      trace: { branch: 'local' },
    };
  },
  async save() {},
  async load() {
    return { calls: [] };
  },
};

/**
 * The indexes the streaming tests serve: BM25 over {@link DOCS} (`bm25`, also returned), and
 * {@link scriptedGraph} answering with `chat`, and as `broken` and `slow` with those models.
 */
export async function streamingIndexes(answers: { chat: ChatModel; broken: ChatModel; slow: ChatModel }) {
  const { bm25 } = await buildIndexes();
  const served: ServedIndexInput[] = [
    { method: bm25Rag, index: bm25 },
    scriptedIndex(answers.chat),
    scriptedIndex(answers.broken, 'broken'),
    scriptedIndex(answers.slow, 'slow'),
  ];
  return { bm25, served };
}

/**
 * A served index of {@link scriptedGraph} with no calls yet, answering with `answer` (none: the
 * server's own chat model, or no answers), named `name` (none: the method's name).
 */
export function scriptedIndex(answer?: ChatModel, name?: string): ServedIndexInput {
  return {
    ...(name === undefined ? {} : { name }),
    method: scriptedGraph,
    index: { calls: [] },
    ...(answer === undefined ? {} : { answer }),
  };
}

/** A chat model that streams `pieces` (waiting `delayMs` between them), or fails after `failAfter` pieces. */
export function streamingChat(
  pieces: string[],
  options: { delayMs?: number; failAfter?: number } = {},
): ChatModel & { calls: ChatCallOptions[]; aborted: number } {
  const model = {
    specificationVersion: 'v1' as const,
    provider: 'scripted',
    modelId: 'streaming-chat',
    calls: [] as ChatCallOptions[],
    aborted: 0,
    async doGenerate(call: ChatCallOptions) {
      model.calls.push(call);
      return { text: pieces.join(''), finishReason: 'stop' as const };
    },
    async *doStream(call: ChatCallOptions): AsyncGenerator<ChatStreamPart> {
      model.calls.push(call);
      for (const [i, text] of pieces.entries()) {
        if (options.failAfter === i) {
          throw new Error('model crashed\n    at scripted (/srv/secret/model.ts:1:1)');
        }
        if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
        if (call.abortSignal?.aborted) {
          model.aborted++;
          return;
        }
        yield { type: 'text-delta', text };
      }
      yield { type: 'finish', usage: { inputTokens: 30, outputTokens: pieces.length }, finishReason: 'stop' };
    },
  };
  return model;
}

export { type RawResponse, rawRequest } from './http.js';

/** A response whose JSON body the test reads field by field. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field in tests
export type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

/** `fetch` of `path` on `base`. */
export function get(base: string, path: string, init?: RequestInit): Promise<JsonResponse> {
  return fetch(new URL(path, base), init);
}

/** POST a JSON body to `/v1/query`. */
export function postQuery(
  base: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  return fetch(new URL('/v1/query', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** The events of a whole Server-Sent Events body, in order, with their data parsed as JSON. */
export function parseEvents(body: string): { event: string; data: unknown }[] {
  return body
    .split(/\n\n+/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      return { event, data: JSON.parse(data.join('\n')) as unknown };
    });
}

/** A response body without its timing, for comparing runs. */
export function withoutMs(json: unknown): unknown {
  const { ms: _ms, ...rest } = json as Record<string, unknown>;
  return rest;
}

/**
 * A server for the tests of one file: `serve({ explorerDir: false, port: 0, ...await options() })`
 * before them (`beforeAll`, within `timeoutMs`), closed after them. Returns the running server.
 */
export function serveForTests(options: () => Promise<ServeOptions>, timeoutMs?: number): () => RunningServer {
  let server: RunningServer | undefined;
  beforeAll(async () => {
    server = await serve({ explorerDir: false, port: 0, ...(await options()) });
  }, timeoutMs);
  afterAll(async () => {
    await server?.close();
  });
  return () => {
    if (server === undefined)
      throw new Error('serveForTests: the server starts in beforeAll; use it in a test.');
    return server;
  };
}

/**
 * Read a streamed response body until what came so far contains `marker`; returns that text. The
 * rest of the body is left unread (a test aborts the request next).
 */
export async function readUntil(res: Response, marker: string): Promise<string> {
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes(marker)) {
    const { value } = await reader.read();
    text += new TextDecoder().decode(value);
  }
  return text;
}
