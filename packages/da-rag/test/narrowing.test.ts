import { createBuildContext } from '@grag/core/kit';
import { createOfflineProviders } from '@grag/offline';
import { beforeAll, describe, expect, test } from 'vitest';
import { type DaRagIndex, daRag, type TracedCommunity } from '../src/index.js';
import { CORPUS } from './corpus.js';

const QUERY = 'Who directs the institute that operates the research vessel built by the Kessler Shipyard?';

let index: DaRagIndex;
beforeAll(async () => {
  const { tasks, embedder } = createOfflineProviders();
  index = await daRag.build(CORPUS, createBuildContext({ embedder, tasks }));
});

/** Entity ids mentioned by the chunks with these ids. */
function entitiesOf(chunkIds: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const id of chunkIds) {
    for (const e of index.chunkEntities[index.chunkLayer.index.get(id)!]!) out.add(index.entities[e]!.id);
  }
  return out;
}

interface NarrowTrace {
  anchor: { community: string | null } | { community: string | null }[];
  layers: Record<string, { nodes: number }>;
  communities: TracedCommunity[];
}

describe('coarse-to-fine (DA-RAG §4): the anchor chunk community narrows the KG and Similarity search', () => {
  test('every KG and Similarity community holds only entities of its anchor chunk community', async () => {
    for (const anchors of [1, 2]) {
      const r = await daRag.retrieve(index, QUERY, { anchors });
      const trace = r.trace as unknown as NarrowTrace;
      const anchorList = Array.isArray(trace.anchor) ? trace.anchor : [trace.anchor];
      expect(anchorList).toHaveLength(anchors);
      let checked = 0;
      anchorList.forEach((anchor, a) => {
        const tag = anchors > 1 ? `a${a + 1}:` : '';
        const chunkCommunity = trace.communities.find((c) => c.id === anchor.community);
        expect(chunkCommunity?.layer).toBe('chunk');
        const allowed = entitiesOf(chunkCommunity!.nodes);
        const entityCommunities = trace.communities.filter(
          (c) => c.layer !== 'chunk' && (tag === '' || c.id.startsWith(tag)),
        );
        checked += entityCommunities.length;
        for (const c of entityCommunities) for (const e of c.nodes) expect(allowed.has(e)).toBe(true);
      });
      expect(checked).toBeGreaterThan(0);
    }
  });

  test('the working subgraphs are smaller than their layers; "w/o C" searches the whole layers', async () => {
    const narrowed = (await daRag.retrieve(index, QUERY, { anchors: 1 })).trace as unknown as NarrowTrace;
    const anchor = narrowed.communities.find(
      (c) => c.id === (narrowed.anchor as { community: string }).community,
    )!;
    expect(narrowed.layers.kg!.nodes).toBe(entitiesOf(anchor.nodes).size);
    expect(narrowed.layers.kg!.nodes).toBeLessThan(index.kgLayer.n);
    expect(narrowed.layers.sim!.nodes).toBeLessThan(index.simLayer!.n);
    const whole = (await daRag.retrieve(index, QUERY, { chunkLayer: false })).trace as unknown as NarrowTrace;
    expect(whole.layers.kg!.nodes).toBe(index.kgLayer.n);
    expect(whole.layers.sim!.nodes).toBe(index.simLayer!.n);
  });
});
