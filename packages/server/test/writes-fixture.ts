/**
 * What the tests of named indexes and writes share: two small invented corpora saved as BM25
 * indexes in a folder, a server on that folder, and calls that submit a write and wait for its job
 * (through its event stream).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Document } from '@grag/core';
import { bm25Rag, denseRag } from '@grag/naive-rag';
import type { Hono } from 'hono';
import { afterAll, beforeAll } from 'vitest';
import {
  createGragServer,
  type IndexFolderOptions,
  type Job,
  openIndexFolder,
  type RunningServer,
  type ServeOptions,
  serve,
} from '../src/index.js';
import { type JsonResponse, offlineContext, parseEvents } from './helpers.js';

/** The corpus of the index `harbour`: one document per line of invented harbour history. */
export const HARBOUR: Document[] = [
  { id: 'h-crane', text: 'The Veldt harbour crane lifted the first container in 1962.' },
  { id: 'h-pilot', text: 'Harbour pilot Mira Otten guided the ferry Saltwind past the breakwater.' },
  { id: 'h-lamp', text: 'The lamp of the Veldt lighthouse burns whale oil no more since 1921.' },
];

/** The corpus of the index `orchard`: invented orchard records. */
export const ORCHARD: Document[] = [
  { id: 'o-quince', text: 'The Brannock orchard grows quince trees along the southern wall.' },
  { id: 'o-cider', text: 'Cider from Brannock apples won the county fair in 1988.' },
  { id: 'o-frost', text: 'A late frost in April damaged the Brannock pear blossoms.' },
];

export const METHODS = [bm25Rag, denseRag];

/**
 * Two workspaces over the folder of {@link indexFolder}: `port` holds `harbour`, `farm` holds
 * `orchard`; an admin key, a read and a write token of `port`, a write token of `farm`.
 */
export const TOKENS = [
  { token: 'admin-key', access: 'admin' as const },
  { token: 'a-read', access: 'read' as const, workspace: 'port' },
  { token: 'a-write', access: 'write' as const, workspace: 'port' },
  { token: 'b-write', access: 'write' as const, workspace: 'farm' },
];
export const WORKSPACES = { port: ['harbour'], farm: ['orchard'] };
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A fresh folder with `harbour` and `orchard`, two BM25 indexes of one document per unit. */
export async function indexFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'grag-server-writes-'));
  await bm25Rag.save(
    await bm25Rag.build(HARBOUR, offlineContext(), { chunking: 'document' }),
    join(dir, 'harbour'),
  );
  await bm25Rag.save(
    await bm25Rag.build(ORCHARD, offlineContext(), { chunking: 'document' }),
    join(dir, 'orchard'),
  );
  return dir;
}

/** A server on the folder `dir` (its app too, to wait for its jobs), the folder opened with `folderOptions`. */
export async function serveFolder(
  dir: string,
  options: Partial<ServeOptions> = {},
  folderOptions: Partial<IndexFolderOptions> = {},
): Promise<{
  app: Hono;
  server: RunningServer;
  skipped: { path: string; reason: string }[];
  log: string[];
}> {
  // What the server would log (a test shows it when it fails), unless the caller takes it.
  const log: string[] = [];
  const onError = (error: unknown, where: string) =>
    log.push(`${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  const folder = await openIndexFolder(dir, {
    methods: METHODS,
    context: () => offlineContext(),
    createContext: () => offlineContext(),
    ...folderOptions,
  });
  if (options.processes !== undefined) {
    // Several processes: serve makes the apps (in the primary and in each replica).
    const server = await serve({ folder, explorerDir: false, onError, port: 0, ...options });
    return { app: undefined as unknown as Hono, server, skipped: folder.skipped, log };
  }
  const app = createGragServer({ folder, explorerDir: false, onError, ...options });
  const server = await serve(app, { port: 0 });
  return { app, server, skipped: folder.skipped, log };
}

/** A folder of indexes served to the tests of a file, filled in before they run. */
export interface ServedFolder {
  dir: string;
  app: Hono;
  server: RunningServer;
  skipped: { path: string; reason: string }[];
  /** What the server logged (its `onError` calls), oldest first. */
  log: string[];
}

/**
 * A folder from {@link indexFolder} served with `options` for the tests of the file that calls
 * this: made and served before they run (after `prepare`, which may add files to the folder), closed
 * and removed after. The fields are set once the tests start.
 */
export function servedFolder(
  options: Partial<ServeOptions> = {},
  prepare?: (dir: string) => Promise<void>,
): ServedFolder {
  const served = {} as ServedFolder;
  beforeAll(async () => {
    served.dir = await indexFolder();
    await prepare?.(served.dir);
    Object.assign(served, await serveFolder(served.dir, options));
  }, 60_000);
  afterAll(async () => {
    await served.server?.close();
    if (served.dir) await rm(served.dir, { recursive: true, force: true });
  });
  return served;
}

/** A JSON request to the server. */
export function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  return fetch(new URL(path, base), {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** The events of job `id` until its `end` (read from `GET /v1/jobs/:id/events`). */
export async function jobEvents(base: string, id: string, headers: Record<string, string> = {}) {
  const res = await fetch(new URL(`/v1/jobs/${id}/events`, base), { headers });
  if (res.status !== 200) throw new Error(`job events: HTTP ${res.status}: ${await res.text()}`);
  return parseEvents(await res.text()) as { event: 'job' | 'end'; data: Job }[];
}

/** Submit a write (it must be accepted with 202) and wait for its job to end; the final job. */
export async function write(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Job> {
  const res = await call(base, method, path, body, headers);
  const accepted = await res.json();
  if (res.status !== 202)
    throw new Error(`${method} ${path}: HTTP ${res.status}: ${JSON.stringify(accepted)}`);
  const events = await jobEvents(base, accepted.id, headers);
  const last = events.at(-1);
  if (last?.event !== 'end') throw new Error(`job ${accepted.id}: the stream ended without "end"`);
  return last.data;
}

/** The document ids every item of a query response comes from. */
export function docIdsOf(body: { retrieval: { items: { source: { docIds: string[] } }[] } }): string[] {
  return [...new Set(body.retrieval.items.flatMap((item) => item.source.docIds))].sort();
}
