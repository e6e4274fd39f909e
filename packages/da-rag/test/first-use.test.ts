import type { Document } from '@grag/core';
import { edgeTriangles } from '@grag/ktruss';
import { describe, expect, test } from 'vitest';
import { type DaRagIndex, daRag } from '../src/index.js';
import { POSTINGS_AFTER_ROW_READS, vectorPostings } from '../src/relevance.js';
import { offlineContext } from './offline-context.js';

/** Six short articles of an invented valley, naming one another. */
const CORPUS: Document[] = [
  [
    'mill',
    'Orlen Mill',
    'Orlen Mill grinds barley for the villages of the Tass valley. Its miller is Ida Varr.',
  ],
  ['varr', 'Ida Varr', 'Ida Varr runs Orlen Mill and keeps the bridge toll at Tassford.'],
  ['tassford', 'Tassford', 'Tassford is a market town on the river Tass, upstream of Orlen Mill.'],
  [
    'bridge',
    'Tassford Bridge',
    'Tassford Bridge was rebuilt in stone after the flood; Ida Varr collects its toll.',
  ],
  [
    'flood',
    'The Tass Flood',
    'The Tass Flood swept away the wooden bridge at Tassford and damaged Orlen Mill.',
  ],
  ['fair', 'Barley Fair', 'The Barley Fair of Tassford sells the flour of Orlen Mill every autumn.'],
].map(([id, title, text]) => ({ id: id!, title: title!, text: text! }));

const QUESTIONS = [
  'Who keeps the toll of the bridge at Tassford?',
  'What did the flood damage?',
  'Where is the flour of the mill sold?',
];

/** Items with scores and sources, and the context: what must not depend on how relevance is read. */
async function answers(index: DaRagIndex, from: number, to: number, options: Record<string, unknown>) {
  const out: string[] = [];
  for (let i = from; i < to; i++) {
    const r = await daRag.retrieve(index, QUESTIONS[i % QUESTIONS.length]!, options);
    out.push(JSON.stringify([r.items.map((x) => [x.id, x.score, x.source]), r.context]));
  }
  return out;
}

describe('relevance read row by row, then by postings', () => {
  test.each([
    ['paper preset (dense relevance)', 'paper', {}],
    ['offline preset (hybrid relevance)', 'offline', {}],
  ] as const)(
    '%s: the same retrievals whichever way, postings made after the row reads',
    async (_, preset, options) => {
      const rounds = POSTINGS_AFTER_ROW_READS + 3;
      const ctx = offlineContext();
      const rowsFirst = await daRag.build(CORPUS, ctx, { preset });
      const byPostings = await daRag.build(CORPUS, ctx, { preset });
      // The other index reads postings from its first query on.
      byPostings.cache.chunkPostings = vectorPostings(byPostings.chunkVectors);
      byPostings.cache.entityPostings = vectorPostings(byPostings.entityVectors);

      const first = await answers(rowsFirst, 0, POSTINGS_AFTER_ROW_READS, options);
      expect(rowsFirst.cache.chunkPostings).toBeUndefined();
      expect(rowsFirst.cache.rowReads?.chunkPostings).toBe(POSTINGS_AFTER_ROW_READS);
      const later = await answers(rowsFirst, POSTINGS_AFTER_ROW_READS, rounds, options);
      // The read after the last row read made them.
      expect(rowsFirst.cache.chunkPostings).not.toBeUndefined();

      expect([...first, ...later]).toEqual(await answers(byPostings, 0, rounds, options));
    },
  );
});

/**
 * Eight valleys of three articles each (a mill, its miller, its town), naming one another only
 * within their valley: an anchor community of one valley induces a small part of the KG.
 */
const VALLEYS: Document[] = ['Arn', 'Bexa', 'Corrow', 'Dunmere', 'Elsk', 'Fallow', 'Grist', 'Hollin'].flatMap(
  (valley, i) => {
    const miller = ['Ada', 'Bran', 'Cora', 'Dov', 'Edda', 'Finn', 'Gale', 'Hild'][i]!;
    const town = `${valley}ford`;
    return [
      {
        id: `${valley}-mill`,
        title: `${valley} Mill`,
        text: `${valley} Mill grinds oats for ${town}. Its miller is ${miller} ${valley}.`,
      },
      {
        id: `${valley}-miller`,
        title: `${miller} ${valley}`,
        text: `${miller} ${valley} runs ${valley} Mill and was born in ${town}.`,
      },
      {
        id: `${valley}-town`,
        title: town,
        text: `${town} is a village below ${valley} Mill, home of ${miller} ${valley}.`,
      },
    ];
  },
);

describe('working subgraph triangles', () => {
  test.each(['paper', 'offline'] as const)(
    '%s preset: listed on a small working subgraph or read from the layer, the same retrievals',
    async (preset) => {
      const ctx = offlineContext();
      const own = await daRag.build(VALLEYS, ctx, { preset });
      const fromLayer = await daRag.build(VALLEYS, ctx, { preset });
      fromLayer.cache.triangles = {
        kg: edgeTriangles(fromLayer.kgLayer),
        sim: edgeTriangles(fromLayer.simLayer!),
      };
      const ask = async (index: DaRagIndex) => {
        const out: string[] = [];
        for (const q of [
          'Who runs Corrow Mill?',
          'Where was Hild Hollin born?',
          'What does Elsk Mill grind?',
        ]) {
          const r = await daRag.retrieve(index, q, {});
          out.push(JSON.stringify([r.items.map((x) => [x.id, x.score, x.source]), r.context]));
          const { layers } = r.trace as { layers: Record<string, { feasibleK: unknown }> };
          // The KG working subgraph was searched (its truss decomposition read its triangles).
          expect(layers.kg?.feasibleK).not.toBeNull();
        }
        return out;
      };
      expect(await ask(own)).toEqual(await ask(fromLayer));
      // Each query's working subgraph was small, so the layers were never listed.
      expect(own.cache.triangles).toBeUndefined();
    },
  );
});
