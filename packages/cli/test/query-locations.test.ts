/**
 * `grag query` on an index of documents loaded with segments: the answer's sources and the listed
 * items name the page, section or row they come from (`report.pdf p. 3`), and `--json` carries the
 * locations of every item and of every citation.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SourceLocation } from '@grag/core';
import { createBuildContext, flatIndexFactory, formatLocation } from '@grag/core/kit';
import { LOCATED_QUESTIONS, locatedDocuments } from '@grag/core/test';
import { bm25Rag } from '@grag/naive-rag';
import { createOfflineEmbedder, createOfflineTasks } from '@grag/offline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueryResult } from '../src/query-command.js';
import { runGrag } from './helpers.js';

describe('grag query shows where each source comes from', () => {
  let dir: string;
  let index: string;
  const [observatory] = LOCATED_QUESTIONS;
  const page3 = formatLocation(observatory!.location);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'grag-query-locations-'));
    index = join(dir, 'index');
    // As `grag index` builds it offline, from documents a loader gave (pages, sections, rows).
    const embedder = createOfflineEmbedder('tfidf');
    const ctx = createBuildContext({
      embedder,
      tasks: createOfflineTasks({ embedder }),
      vectorIndex: flatIndexFactory,
    });
    await bm25Rag.save(await bm25Rag.build(locatedDocuments(), ctx, { chunkSize: 40, overlap: 0 }), index);
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('prints the answer sources and the items as [chunk-id] report.pdf p. 3', async () => {
    const r = await runGrag(dir, ['query', index, observatory!.question]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`A: ${observatory!.answer}`);
    const sources = /^ {3}sources: (.*)$/m.exec(r.out)?.[1];
    expect(sources).toMatch(new RegExp(`^\\[report\\.pdf#\\d+\\] ${page3.replace('.', '\\.')}`));
    expect(r.out).toMatch(
      /^ {2}\[report\.pdf#\d+\] chunk [\d.]+ from report\.pdf p\. 3: Annual report Ilse Varga founded/m,
    );
    // The document without segments is still named by its id.
    const notes = await runGrag(dir, ['query', index, 'When does the Ashford market open?']);
    expect(notes.out).toMatch(/^ {2}\[notes#0\] chunk [\d.]+ from notes: Notes Ashford/m);
  });

  it('carries the locations of every item and every citation in --json', async () => {
    const r = await runGrag(dir, ['query', index, observatory!.question, '--json']);
    expect(r.code, r.err).toBe(0);
    const result = JSON.parse(r.out) as QueryResult;
    const top = result.retrieval.items[0]!;
    expect(top.source.locations).toEqual([{ path: 'report.pdf', page: 3 }]);
    for (const item of result.retrieval.items) {
      if (item.source.docIds[0] === 'notes') expect(item.source.locations).toBeUndefined();
      else expect(item.source.locations).toHaveLength(1);
    }
    expect(result.citations!.length).toBeGreaterThan(0);
    expect(result.sources!.map((s) => s.id)).toEqual(result.citations);
    const first = result.sources![0]!;
    expect(first).toEqual({
      id: result.citations![0],
      docIds: ['report.pdf'],
      locations: [{ path: 'report.pdf', page: 3 } satisfies SourceLocation],
      label: page3,
    });
  });
});
