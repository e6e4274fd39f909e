import { getTokenizer } from '@grag/core/kit';
import { beforeAll, describe, expect, test } from 'vitest';
import { type DaRagIndex, daRag } from '../src/index.js';
import { type PackInput, packCommunities } from '../src/pack.js';
import { candidate } from './candidates.js';
import { CORPUS } from './corpus.js';
import { offlineContext } from './offline-context.js';

const tokenizer = getTokenizer();

// Five chunks of an invented harbour town; relevance 0.9, 0.8, 0, 0.5, 0.7.
const TEXTS = [
  'The lighthouse of Varn stands on the northern mole.',
  'Its keeper, Ilse Brandt, logs every ship at dusk.',
  'The fish market opens before sunrise.',
  'The ferry to Osk leaves from the southern quay.',
  'Brandt trained under the old harbour master.',
];
const index = {
  chunks: TEXTS.map((_, i) => ({ id: `c${i}`, docId: `d${i}` })),
  texts: TEXTS,
  entities: [{ id: 'e0' }, { id: 'e1' }],
  cache: {},
} as unknown as DaRagIndex;
const rel = Float64Array.from([0.9, 0.8, 0, 0.5, 0.7]);
// A chunk community that writes chunks 1 and 0, and a KG community whose entities chunk 3 mentions
// (its text is not written).
const ranked = [
  candidate({ id: 'chunk-k3', layer: 'chunk', nodes: [1, 0], chunks: [1, 0], members: 'M1', score: 9 }),
  candidate({ id: 'kg-k3', layer: 'kg', nodes: [0, 1], chunks: [3], members: 'M2', score: 7 }),
];

function pack(over: Partial<PackInput>) {
  return packCommunities({
    index,
    ranked,
    budget: 1000,
    topK: undefined,
    communityText: 'report+members',
    packing: 'greedy',
    tokenizer,
    fill: rel,
    ...over,
  });
}

describe('fillBudget: the room the communities leave', () => {
  test('takes the chunks of positive relevance the communities do not write, most relevant first', () => {
    const out = pack({});
    // c0 and c1 are written by the chunk community; c2 has relevance 0; c3 is only mentioned.
    expect(out.packed.items.map((i) => i.id)).toEqual(['chunk-k3', 'kg-k3', 'c4', 'c3']);
    expect(out.filled).toBe(2);
    expect(out.packed.context).toBe(
      ['[chunk-k3] M1', '[kg-k3] M2', `[c4] ${TEXTS[4]}`, `[c3] ${TEXTS[3]}`].join('\n\n'),
    );
    expect(out.packed.items[2]).toMatchObject({
      kind: 'chunk',
      score: 0.7,
      source: { chunkIds: ['c4'], docIds: ['d4'] },
    });
    // Nothing of the communities changes.
    const alone = pack({ fill: undefined });
    expect(out.packed.items.slice(0, 2)).toEqual(alone.packed.items);
    expect(out.communities).toEqual(alone.communities);
    expect(out.subgraph).toEqual(alone.subgraph);
    expect(alone.filled).toBe(0);
  });

  test('a community that writes only its report leaves its chunks to the fill', () => {
    const reported = [{ ...ranked[0]!, report: 'R' }, ranked[1]!];
    const out = pack({ communityText: 'report', ranked: reported });
    // The KG community has no report: it writes its members.
    expect(out.packed.context.split('\n\n').slice(0, 2)).toEqual(['[chunk-k3] R', '[kg-k3] M2']);
    expect(out.packed.items.map((i) => i.id)).toEqual(['chunk-k3', 'kg-k3', 'c0', 'c1', 'c4', 'c3']);
    // Without a report, 'report' writes the members: chunks 0 and 1 are not offered again.
    expect(pack({ communityText: 'report' }).packed.items.map((i) => i.id)).toEqual([
      'chunk-k3',
      'kg-k3',
      'c4',
      'c3',
    ]);
  });

  test('cuts the first chunk that does not fit to the room left, and stays within the budget', () => {
    const whole = ['[chunk-k3] M1', '[kg-k3] M2', `[c4] ${TEXTS[4]}`].join('\n\n');
    // Room for the communities, c4 and 40 tokens of a longer c3 (packContext cuts an item only when
    // at least 32 tokens are left).
    const budget = tokenizer.count(`${whole}\n\n`) + 40;
    const longer = TEXTS.map((t, i) => (i === 3 ? `${t} ${'The quay is long. '.repeat(20)}` : t));
    const out = pack({ budget, index: { ...index, texts: longer } as DaRagIndex });
    expect(out.packed.items.map((i) => i.id)).toEqual(['chunk-k3', 'kg-k3', 'c4', 'c3']);
    expect(out.packed.truncated).toBe('c3');
    expect(out.packed.tokens).toBeLessThanOrEqual(budget);
    expect(out.packed.context.startsWith(`${whole}\n\n[c3] ${TEXTS[3]}`)).toBe(true);
  });

  test("adds nothing when the communities fill the budget, or when 'truncate' packing stopped", () => {
    const exact = tokenizer.count(['[chunk-k3] M1', '[kg-k3] M2'].join('\n\n'));
    expect(pack({ budget: exact }).packed.items.map((i) => i.id)).toEqual(['chunk-k3', 'kg-k3']);
    const long = 'The harbour master keeps the tide tables. '.repeat(20);
    const longer = [ranked[0]!, { ...ranked[1]!, members: long, memberTokens: tokenizer.count(long) }];
    const budget = tokenizer.count('[chunk-k3] M1\n\n') + 40;
    const cut = pack({ budget, packing: 'truncate', ranked: longer });
    expect(cut.packed.truncated).toBe('kg-k3');
    expect(cut.filled).toBe(0);
    // Too little room to cut it (under packContext's 32 tokens): it is left out, and so is the rest.
    const stopped = pack({ budget: exact - 1, packing: 'truncate' });
    expect(stopped.packed.items.map((i) => i.id)).toEqual(['chunk-k3']);
    expect(stopped.filled).toBe(0);
    // Greedy packing goes on past it: the chunks fill what is left.
    expect(pack({ budget, ranked: longer }).packed.items.map((i) => i.id)).toEqual(['chunk-k3', 'c4', 'c3']);
  });
});

describe('fillBudget in retrieval', () => {
  let built: DaRagIndex;
  beforeAll(async () => {
    built = await daRag.build(CORPUS, offlineContext(), { preset: 'offline' });
  });

  test('is on in the offline preset and off in the paper preset', async () => {
    expect(built.options.fillBudget).toBe(true);
    const paper = await daRag.build(CORPUS, offlineContext(), { similarityLayer: false });
    expect(paper.options.fillBudget).toBe(false);
  });

  test('keeps the communities and adds chunks that are not in them, within the budget', async () => {
    const query = 'Who keeps the research vessel built by the Kessler Shipyard?';
    for (const budgetTokens of [300, 800, 4000]) {
      const without = await daRag.retrieve(built, query, { budgetTokens, fillBudget: false });
      const withFill = await daRag.retrieve(built, query, { budgetTokens, fillBudget: true });
      expect(withFill.items.slice(0, without.items.length)).toEqual(without.items);
      expect(withFill.tokens).toBeGreaterThanOrEqual(without.tokens);
      expect(withFill.tokens).toBeLessThanOrEqual(budgetTokens);
      const fillers = withFill.items.slice(without.items.length);
      expect((withFill.trace as { filled: number }).filled).toBe(fillers.length);
      const written = new Set(
        (without.trace as { communities: { layer: string; packed: boolean; nodes: string[] }[] }).communities
          .filter((c) => c.layer === 'chunk' && c.packed)
          .flatMap((c) => c.nodes),
      );
      for (const item of fillers) {
        expect(item.kind).toBe('chunk');
        expect(item.score).toBeGreaterThan(0);
        expect(written.has(item.id)).toBe(false);
      }
      const scores = fillers.map((i) => i.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    }
  });
});
