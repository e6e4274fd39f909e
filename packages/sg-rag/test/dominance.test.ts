import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexFormatError, InvalidArgumentError } from '@grag/core';
import { createTrainingFreeEmbedder } from '@grag/dominance-gnn';
import { describe, expect, it } from 'vitest';
import { createSgRag } from '../src/index.js';
import { deniroCrimeQuery, FILM_TRIPLES, offlineContext, T } from './helpers.js';

const triples = [...FILM_TRIPLES, T('alien', 'genre', 'scifi')];
const sg = createSgRag();
const context = offlineContext;
const queryGraph = deniroCrimeQuery(['', '']);
const tmp = () => mkdtemp(join(tmpdir(), 'sg-rag-dominance-'));

describe('dominanceEmbedder', () => {
  it.each([
    ['gat', 'gat'],
    ['monotone', 'monotone-gat'],
  ] as const)(
    '%s: trained at build time, seeded, saved with its weights and reloaded',
    async (choice, kind) => {
      const options = { triples, dominanceEmbedder: choice, dominanceEpochs: 1 } as const;
      const index = await sg.build([], context(), options);
      expect(index.options.dominanceEmbedder).toBe(choice);
      expect(index.paths.embedder.kind).toBe(kind);
      expect(index.stats.dominanceTrainPairs).toBeGreaterThan(0);
      const json = index.paths.embedder.toJSON();
      expect(Object.keys(json.weights).length).toBeGreaterThan(0);
      // Same seed, same model; another seed, other weights.
      const again = await sg.build([], context(), options);
      expect(again.paths.embedder.toJSON()).toEqual(json);
      const reseeded = await sg.build([], context(), { ...options, seed: 7 });
      expect(reseeded.paths.embedder.toJSON().weights).not.toEqual(json.weights);

      const dir = await tmp();
      await sg.save(index, dir);
      const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
      expect(manifest.params.dominanceEmbedder).toBe(choice);
      const loaded = await sg.load(dir, context());
      expect(loaded.paths.embedder.toJSON()).toEqual(json);
      const r = await sg.retrieve(loaded, 'q', { queryGraph });
      expect(r.trace.answers).toEqual(['heat', 'ronin']);
    },
  );

  it('takes a user embedder object; its dimensions are the index dimensions; "custom" on disk', async () => {
    const mine = createTrainingFreeEmbedder({ dimensions: 3, seed: 11 });
    const custom = createSgRag({ defaults: { dominanceEmbedder: mine } });
    const index = await custom.build([], context(), { triples });
    expect(index.paths.embedder).toBe(mine);
    expect(index.options).toMatchObject({ dominanceEmbedder: 'custom', dominanceDimensions: 3 });
    const dir = await tmp();
    await custom.save(index, dir);
    // The instance configured with the object gets the object back; any instance can rebuild a
    // serializable embedder from dominance.json.
    expect((await custom.load(dir, context())).paths.embedder).toBe(mine);
    const plain = await sg.load(dir, context());
    expect(plain.paths.embedder.toJSON()).toEqual(mine.toJSON());
    expect((await sg.retrieve(plain, 'q', { queryGraph })).trace.answers).toEqual(['heat', 'ronin']);
    const other = createSgRag({
      defaults: { dominanceEmbedder: createTrainingFreeEmbedder({ dimensions: 3 }) },
    });
    await expect(other.load(dir, context())).rejects.toThrow(/dominance\.json.*another embedder/);
  });

  it('refuses an unknown embedder name and a dominance.json of another kind than the manifest says', async () => {
    const error = await sg
      .build([], context(), { triples, dominanceEmbedder: 'gnn' as never })
      .catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      "sg-rag build: dominanceEmbedder must be one of 'training-free', 'gat', 'monotone'",
    );
    const index = await sg.build([], context(), { triples });
    const dir = await tmp();
    await sg.save(index, dir);
    const file = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(file, 'utf8'));
    manifest.params.dominanceEmbedder = 'gat';
    await writeFile(file, JSON.stringify(manifest));
    const loadError = await sg.load(dir, context()).catch((e) => e);
    expect(loadError).toBeInstanceOf(IndexFormatError);
    expect(loadError.message).toMatch(
      /dominance\.json.*training-free embedder, but the manifest says dominanceEmbedder "gat"/,
    );
  });
});
