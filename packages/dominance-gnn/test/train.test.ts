import { AbortError } from '@grag/core';
import { describe, expect, test } from 'vitest';
import {
  createMonotoneEmbedder,
  degree,
  pruningPower,
  sampleNegatives,
  sampleSubStarPairs,
  trainGatEmbedder,
  trainMonotoneEmbedder,
  verifyDominance,
} from '../src/index.js';
import { filmGraph, randomGraph } from './fixtures.js';

describe('trainGatEmbedder (the paper model, Algorithm 2)', () => {
  const graph = randomGraph(30, 45, 3, 11);

  test('reports the violations it leaves, and the closure correction removes every one', async () => {
    const epochs: number[] = [];
    const { embedder, report } = await trainGatEmbedder(graph, {
      epochs: 3,
      onEpoch: (e) => epochs.push(e.epoch),
    });
    expect(report.backend).toBe('cpu');
    expect(report.epochs).toBe(epochs.length);
    expect(report.losses).toHaveLength(report.epochs);
    // Every vertex has degree ≤ 10 and at most 16 proper sub-stars, so the training pairs are all
    // the (star, sub-star) pairs of the used vertices: the last epoch's failures must equal what
    // the verifier finds on the raw model over those vertices.
    const used = graph.ids.map((_, i) => i).filter((i) => degree(graph, i) > 0);
    const raw = verifyDominance(embedder, graph, { correction: 'none', nodes: used });
    expect(raw.exhaustive).toBe(true);
    expect(report.pairs).toBe(raw.pairs);
    expect(report.failures.at(-1)).toBe(raw.violations);
    const corrected = verifyDominance(embedder, graph);
    expect(corrected.violations).toBe(0);
    expect(corrected.correction.method).toBe('closure');
    expect(corrected.correction.lifted).toBe(raw.violatingStars);
  });

  test('is deterministic for a seed', async () => {
    const a = await trainGatEmbedder(filmGraph(), { epochs: 1, seed: 3 });
    const b = await trainGatEmbedder(filmGraph(), { epochs: 1, seed: 3 });
    expect(a.report.losses).toEqual(b.report.losses);
    expect(a.embedder.toJSON().weights).toEqual(b.embedder.toJSON().weights);
  });

  test('skips vertices above maxTrainDegree and counts them', async () => {
    const { report } = await trainGatEmbedder(filmGraph(), { epochs: 1, maxTrainDegree: 3 });
    const degrees = filmGraph().ids.map((_, i) => degree(filmGraph(), i));
    expect(report.vertices.highDegree).toBe(degrees.filter((d) => d > 3).length);
    expect(report.vertices.used).toBe(degrees.filter((d) => d >= 1 && d <= 3).length);
  });

  test('maxTrainVertices draws that many training vertices with the seed and counts the rest', async () => {
    const eligible = graph.ids.filter((_, i) => degree(graph, i) >= 1 && degree(graph, i) <= 10).length;
    const pairsOf = (seed: number) =>
      sampleSubStarPairs(graph, { maxTrainDegree: 10, perVertex: 2, seed, maxVertices: 5 });
    const a = pairsOf(1);
    expect(a.vertices.used).toBe(5);
    expect(a.vertices.notSampled).toBe(eligible - 5);
    // At most 2 sub-stars from each of the 5 vertices drawn; the same seed draws the same ones.
    expect(a.pairs.length).toBeLessThanOrEqual(10);
    expect(pairsOf(1).pairs).toEqual(a.pairs);
    expect(pairsOf(2).pairs).not.toEqual(a.pairs);
    const { report } = await trainGatEmbedder(graph, {
      epochs: 1,
      maxTrainVertices: 5,
      subStarsPerVertex: 2,
    });
    expect(report.vertices).toMatchObject({ used: 5, notSampled: eligible - 5 });
    expect(report.pairs).toBe(pairsOf(2022).pairs.length); // the default seed
    await expect(trainGatEmbedder(graph, { maxTrainVertices: 0 })).rejects.toThrow(/maxTrainVertices/);
  });

  test('stops with an AbortError when its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(trainGatEmbedder(filmGraph(), { signal: controller.signal })).rejects.toSatisfy((e) =>
      AbortError.isInstance(e),
    );
  });
});

describe('trainMonotoneEmbedder', () => {
  const graph = randomGraph(40, 70, 3, 5);

  test('prunes more training negatives than the untrained model and keeps dominance', async () => {
    const { embedder, report } = await trainMonotoneEmbedder(graph, { epochs: 4 });
    const { pairs } = sampleNegatives(graph, {
      maxTrainDegree: 10,
      perVertex: 8,
      sameLabelShare: 0.75,
      seed: 2022,
    });
    expect(report.pairs).toBe(pairs.length);
    const failures = (e: ReturnType<typeof createMonotoneEmbedder>) =>
      pairs.filter(({ query, data }) => {
        const q = e.embed(query.centre, query.neighbours);
        const g = e.embed(data.centre, data.neighbours);
        return q.every((v, k) => v <= g[k]!);
      }).length;
    expect(report.failures.at(-1)).toBe(failures(embedder));
    expect(failures(embedder)).toBeLessThan(failures(createMonotoneEmbedder()));
    const check = verifyDominance(embedder, graph);
    expect(check.violations).toBe(0);
    expect(check.correction.method).toBe('none');
    expect(pruningPower(embedder, graph, { queries: 30, pathQueries: 30 }).stars.falseNegatives).toBe(0);
  });
});
