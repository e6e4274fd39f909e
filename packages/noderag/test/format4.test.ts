/**
 * Format 4 stores BM25 over the embedded nodes' texts (`lexical.bm25`) and records the SHA-256 of
 * `update.json` in `chunks.json`, so that `load` neither tokenizes every text again nor decodes the
 * update data, which only an update reads. An index saved in format 3 (`__fixtures__/v3-offline`:
 * the format-2 fixture `v2-offline` loaded and saved by the format-3 code) loads and retrieves what
 * the format-2 index retrieved then; saved again in format 4 it retrieves the same, with the same
 * BM25 and the same kept data.
 */
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexFormatError } from '@grag/core';
import { Bm25Index } from '@grag/core/kit';
import { editedIndexCopy } from '@grag/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODERAG_FORMAT_VERSION, type NodeRagIndex, nodeRag } from '../src/index.js';
import { fixtureContext, type Recorded, retrieveLike } from './recorded.js';

const FIXTURES = join(import.meta.dirname, '__fixtures__');
const V3 = join(FIXTURES, 'v3-offline', 'index');

/** BM25 over the embedded nodes' texts, made from them as a build makes it. */
const freshLexical = (index: NodeRagIndex) =>
  new Bm25Index(index.vectorKeys.map((key) => index.graph.textOf(key)!)).toArrays();

describe('NodeRAG format 4', () => {
  let root: string;
  let recorded: Recorded[];
  let saved: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'grag-noderag-format4-'));
    recorded = JSON.parse(await readFile(join(FIXTURES, 'v2-offline', 'retrieval.json'), 'utf8'));
    saved = join(root, 'v4');
    await nodeRag.save(await nodeRag.load(V3, fixtureContext()), saved);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const loadError = (dir: string) => nodeRag.load(dir, fixtureContext()).catch((e: unknown) => e);

  it('loads a format-3 index and retrieves what the format-2 index retrieved', async () => {
    const manifest = JSON.parse(await readFile(join(V3, 'manifest.json'), 'utf8'));
    expect(manifest.formatVersion).toBe(3);
    const index = await nodeRag.load(V3, fixtureContext());
    for (const r of recorded) expect(await retrieveLike(index, r)).toEqual(r);
  });

  it('saved again, stores BM25 and the SHA-256 of update.json, and retrieves the same', async () => {
    expect(NODERAG_FORMAT_VERSION).toBe(4);
    const manifest = JSON.parse(await readFile(join(saved, 'manifest.json'), 'utf8'));
    expect(manifest.formatVersion).toBe(4);
    expect(await readdir(saved)).toContain('lexical.bm25');
    const before = await nodeRag.load(V3, fixtureContext());
    const after = await nodeRag.load(saved, fixtureContext());
    for (const r of recorded) expect(await retrieveLike(after, r)).toEqual(r);
    expect(after.lexical.toArrays()).toEqual(freshLexical(after));
    expect(after.lexical.toArrays()).toEqual(before.lexical.toArrays());
    expect(after.kept).toEqual(before.kept);
    // and saved once more, the same bytes
    const again = join(root, 'v4-again');
    await nodeRag.save(after, again);
    for (const file of ['lexical.bm25', 'update.json', 'chunks.json', 'graph.arrays', 'hnsw-graph.bin']) {
      expect(await readFile(join(again, file)), file).toEqual(await readFile(join(saved, file)));
    }
  });

  it('decodes update.json when an update first reads it, and refuses it at load when its bytes changed', async () => {
    const damaged = await editedIndexCopy(saved, join(root, 'damaged'), 'update.json', (kept) => {
      kept.decompositions.pop();
    });
    const e1 = await loadError(damaged);
    expect(IndexFormatError.isInstance(e1), String(e1)).toBe(true);
    expect((e1 as Error).message).toMatch(/update\.json: does not match the SHA-256 chunks\.json records/);
    expect((e1 as Error).message).toMatch(/rebuild the index/);
    // With its SHA-256 recorded, the same file loads: retrieval never reads it, an update does.
    const sha = createHash('sha256')
      .update(await readFile(join(damaged, 'update.json')))
      .digest('hex');
    const recorded2 = await editedIndexCopy(damaged, join(root, 'recorded'), 'chunks.json', (chunks) => {
      chunks.updateSha256 = sha;
    });
    const index = await nodeRag.load(recorded2, fixtureContext());
    expect(await retrieveLike(index, recorded[0]!)).toEqual(recorded[0]);
    const e2 = await nodeRag
      .update(index, { remove: [index.chunks[0]!.docId] }, fixtureContext())
      .catch((e) => e);
    expect(IndexFormatError.isInstance(e2), String(e2)).toBe(true);
    expect(e2.message).toMatch(/update\.json: decompositions has \d+ entries for the \d+ chunks/);
  });

  it('refuses a format-4 index whose lexical.bm25 is missing or damaged, naming it', async () => {
    const missing = join(root, 'no-lexical');
    await cp(saved, missing, { recursive: true });
    await rm(join(missing, 'lexical.bm25'));
    const e1 = await loadError(missing);
    expect(IndexFormatError.isInstance(e1), String(e1)).toBe(true);
    expect((e1 as Error).message).toMatch(/lexical\.bm25: is missing; rebuild the index/);
    const truncated = join(root, 'bad-lexical');
    await cp(saved, truncated, { recursive: true });
    const bytes = await readFile(join(truncated, 'lexical.bm25'));
    await writeFile(join(truncated, 'lexical.bm25'), bytes.subarray(0, bytes.length >> 1));
    const e2 = await loadError(truncated);
    expect(IndexFormatError.isInstance(e2), String(e2)).toBe(true);
    expect((e2 as Error).message).toMatch(/lexical\.bm25/);
  });
});
