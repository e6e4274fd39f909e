import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlatIndex } from '../src/kit.js';
import { formatIndexFuzzReport, fuzzIndexLoad, randomVectors } from '../src/test/index.js';

describe('FlatIndex.load on damaged files', () => {
  it.each(['cosine', 'l2'] as const)(
    'fuzz (%s): a damaged file is refused with a GragError, never a crash',
    async (metric) => {
      const dir = await mkdtemp(join(tmpdir(), 'grag-flat-fuzz-'));
      const index = new FlatIndex({ dimensions: 6, metric });
      for (const [id, vector] of randomVectors(30, 6, 7).entries()) index.add(id * 3, vector);
      await index.save(join(dir, 'vectors.bin'));
      const [query] = randomVectors(1, 6, 8);
      const report = await fuzzIndexLoad({
        dir,
        cases: 1000,
        seed: metric === 'cosine' ? 1 : 2,
        load: (d) => FlatIndex.load(join(d, 'vectors.bin')),
        use: async (loaded) => loaded.search(query!, 5),
      });
      console.log(`FlatIndex (${metric}): ${formatIndexFuzzReport(report)}`);
      expect(report.failures, formatIndexFuzzReport(report)).toEqual([]);
      expect(report.refused).toBeGreaterThan(500);
    },
  );
});
