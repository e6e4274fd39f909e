import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildContext, Document, Retrieval } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createKetRag, type KetRagOptions } from '../src/index.js';

/**
 * A two-hop question: the film passage names its director (by initials), the director's own
 * passage is titled with his full name and never mentions the film; the distractors are other
 * directors' passages that match "director" and "born" better than his.
 */
const FILM: Document = {
  id: 'film',
  title: 'Still Waters',
  text: 'Still Waters is a 1987 Veskan drama film directed by E. D. MacAlder. The film follows a young woman from Orsa who becomes an artist model in Port Halvard.',
};
const DIRECTOR: Document = {
  id: 'director',
  title: 'Edvin D. MacAlder',
  text: 'Edvin D. MacAlder is a Veskan filmmaker and writer from Merrow Falls. MacAlder studied painting at the Orsa College of Art and Design before making films.',
};
const DISTRACTORS: Document[] = [
  {
    id: 'hale',
    title: 'Greta Hale',
    text: 'Greta Hale is a Veskan film director who was born in Dunmore. The director was born in 1946 and directed several drama films.',
  },
  {
    id: 'strand',
    title: 'Aron Strand',
    text: 'Aron Strand is a Veskan film director born in Skarn. Strand was born in 1938; the director is known for drama films about Orsa.',
  },
  {
    id: 'lune',
    title: 'Sigrid Lune',
    text: 'Sigrid Lune is a Tallin-born Veskan film director. The director was born in Kestrel Bay in 1950 and directed drama films in Port Halvard.',
  },
  {
    id: 'halvard',
    title: 'Port Halvard, Veskan Peninsula',
    text: 'Port Halvard is the largest city of the Veskan Peninsula. The city has an art college and a film festival held every September.',
  },
  {
    id: 'orsa',
    title: 'Orsa',
    text: 'Orsa is an island in the Veskan Strait, off the coast of the Veskan Peninsula. Its fiddle music and eel fisheries are well known.',
  },
  {
    id: 'road',
    title: 'Down the Coast Road',
    text: 'Down the Coast Road is a 1970 Veskan road movie by Aron Strand. Two men from Orsa drive to Skarn to find work.',
  },
];
const CORPUS = [FILM, ...DISTRACTORS.slice(0, 3), DIRECTOR, ...DISTRACTORS.slice(3)];
const QUESTION = 'Where is the director of Still Waters from?';

function docsOf(r: Retrieval): string[] {
  const out: string[] = [];
  for (const item of r.items) {
    if (item.kind !== 'chunk') continue;
    for (const doc of item.source.docIds) if (!out.includes(doc)) out.push(doc);
  }
  return out;
}

async function passages(options: Partial<KetRagOptions>, roundTrip = false): Promise<string[]> {
  const { tasks, embedder } = createOfflineProviders();
  const ctx: BuildContext = createBuildContext({ embedder, tasks });
  // The knowledge-graph channel alone (Skeleton-RAG, β = 1): what its local search reaches.
  const method = createKetRag({ variant: 'skeleton-rag' });
  let index = await method.build(CORPUS, ctx, {
    chunking: 'document',
    beta: 1,
    preset: 'offline',
    ...options,
  });
  if (roundTrip) {
    const dir = await mkdtemp(join(tmpdir(), 'ket-rag-bridges-'));
    try {
      await method.save(index, dir);
      index = await method.load(dir, ctx);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return docsOf(await method.retrieve(index, QUESTION, { budgetTokens: 1500 }));
}

describe('bridges through linked entities', () => {
  it('reaches the director passage right after the film passage', async () => {
    const ranked = await passages({});
    expect(ranked.slice(0, 2)).toEqual(['film', 'director']);
  });

  it('keeps the bridge through save and load (aliases, title entities, BM25 rebuilt)', async () => {
    const ranked = await passages({}, true);
    expect(ranked.slice(0, 2)).toEqual(['film', 'director']);
  });

  it('does not reach it without entity linking', async () => {
    const ranked = await passages({ entityLinking: false });
    expect(ranked.slice(0, 2)).not.toContain('director');
  });
});

describe('entry points', () => {
  it("'entry' ranks sub-chunks by the entry-point search alone, with no graph", async () => {
    const { tasks, embedder } = createOfflineProviders();
    const ctx: BuildContext = createBuildContext({ embedder, tasks });
    const method = createKetRag({ variant: 'text-rag' });
    for (const entryPoints of ['dense', 'lexical', 'hybrid'] as const) {
      const index = await method.build(CORPUS, ctx, {
        chunking: 'document',
        textChannel: 'entry',
        entryPoints,
      });
      expect(index.skeleton).toBeUndefined();
      const r = await method.retrieve(index, 'Where was Greta Hale born?', { budgetTokens: 1500 });
      expect(r.items.every((i) => i.kind === 'chunk')).toBe(true);
      expect(docsOf(r)[0]).toBe('hale');
      const dir = await mkdtemp(join(tmpdir(), 'ket-rag-entry-'));
      try {
        await method.save(index, dir);
        const loaded = await method.load(dir, ctx);
        const again = await method.retrieve(loaded, 'Where was Greta Hale born?', { budgetTokens: 1500 });
        expect(again.items.map((i) => i.id)).toEqual(r.items.map((i) => i.id));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  });

  it('refuses an unknown entryPoints mode', async () => {
    const { tasks, embedder } = createOfflineProviders();
    const ctx: BuildContext = createBuildContext({ embedder, tasks });
    await expect(createKetRag().build(CORPUS, ctx, { entryPoints: 'sparse' as 'dense' })).rejects.toThrow(
      /entryPoints/,
    );
  });
});

describe('passage ranking of the combined channels', () => {
  it('scores chunk items by reciprocal rank within their channel, so a ranking by score interleaves them', async () => {
    const { tasks, embedder } = createOfflineProviders();
    const ctx: BuildContext = createBuildContext({ embedder, tasks });
    const method = createKetRag();
    expect(method.passageRanking).toEqual({ kinds: ['chunk'], order: 'score' });
    const index = await method.build(CORPUS, ctx, { chunking: 'document', beta: 1, subChunkSize: 24 });
    const r = await method.retrieve(index, QUESTION, { budgetTokens: 1500 });
    const chunks = r.items.filter((i) => i.kind === 'chunk');
    const graphUnits = r.trace.graphUnits as number;
    expect(graphUnits).toBeGreaterThan(0);
    expect(chunks.length).toBeGreaterThan(graphUnits);
    const graph = chunks.slice(0, graphUnits);
    const text = chunks.slice(graphUnits);
    for (const list of [graph, text]) {
      list.forEach((item, i) => {
        expect(item.score).toBeCloseTo(1 / (60 + i + 1));
      });
    }
    // By score (stable): graph 1, text 1, graph 2, text 2, ...
    const byScore = [...chunks].sort((a, b) => b.score - a.score);
    expect(byScore.slice(0, 2).map((i) => i.id)).toEqual([graph[0]!.id, text[0]!.id]);
  });
});
