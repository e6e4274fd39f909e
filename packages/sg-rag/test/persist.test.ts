import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexFormatError } from '@grag/core';
import { describe, expect, it } from 'vitest';
import { createSgRag } from '../src/index.js';
import { deniroCrimeQuery, FILM_TRIPLES, offlineContext, T } from './helpers.js';

// The triples of __fixtures__/index-v1 (built with pathLength 2 before the v2 method contract).
const triples = [...FILM_TRIPLES];
const method = createSgRag();
const context = offlineContext;
const queryGraph = deniroCrimeQuery(['starring', 'genre']);
const fixture = new URL('./__fixtures__/index-v1', import.meta.url).pathname;

async function copyOf(dir: string): Promise<string> {
  const copy = join(await mkdtemp(join(tmpdir(), 'grag-sg-persist-')), 'idx');
  await cp(dir, copy, { recursive: true });
  return copy;
}

async function refusal(dir: string): Promise<Error> {
  const error = await method.load(dir, context()).catch((e: unknown) => e);
  expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
  expect((error as Error).message).toMatch(/rebuild the index\.$/);
  return error as Error;
}

describe('sg-rag index files', () => {
  it('loads an index written before the v2 method contract and answers as it did', async () => {
    const index = await method.load(fixture, context());
    expect(index.options).toMatchObject({ pathLength: 2, dominanceDimensions: 2 });
    const r = await method.retrieve(index, 'q', { queryGraph });
    // What the index answered when it was written.
    expect(r.trace.answers).toEqual(['heat', 'ronin']);
    expect(r.context).toBe(
      '[match:heat|deniro|crime] heat is related to deniro via: starring. heat is related to crime via: genre.' +
        '\n\n[match:ronin|deniro|crime] ronin is related to deniro via: starring. ronin is related to crime via: genre.',
    );
    // A fresh build of the same triples answers the same.
    const built = await method.build([], context(), { triples, pathLength: 2 });
    const again = await method.retrieve(built, 'q', { queryGraph });
    expect(again.context).toBe(r.context);
  });

  it('refuses path nodes that are not whole paths or name no node', async () => {
    const ragged = await copyOf(fixture);
    await writeFile(join(ragged, 'paths.bin'), 'abc');
    expect((await refusal(ragged)).message).toContain('holds 3 bytes, not a whole number of 3-node paths');
    const stray = await copyOf(fixture);
    const nodes = new Int32Array((await readFile(join(stray, 'paths.bin'))).buffer.slice(0));
    nodes[4] = 99;
    await writeFile(join(stray, 'paths.bin'), new Uint8Array(nodes.buffer));
    expect((await refusal(stray)).message).toContain('path 1 names node 99, not one of the 7 nodes');
  });

  it('refuses a tree of another index and a dominance embedder of other dimensions', async () => {
    const other = join(await mkdtemp(join(tmpdir(), 'grag-sg-other-')), 'idx');
    await method.save(
      await method.build([], context(), {
        triples: [...triples, T('alien', 'genre', 'scifi')],
        pathLength: 2,
      }),
      other,
    );
    // Alien gains a second neighbour: one more 2-path (weaver, alien, scifi) than the fixture's 6.
    const tree = await copyOf(fixture);
    await cp(join(other, 'tree.bin'), join(tree, 'tree.bin'));
    const treeError = await refusal(tree);
    expect(treeError.message).toContain(join(tree, 'tree.bin'));
    expect(treeError.message).toContain('holds 7 paths, but paths.bin holds 6');
    const dominance = await copyOf(fixture);
    const path = join(dominance, 'dominance.json');
    const json = JSON.parse(await readFile(path, 'utf8'));
    await writeFile(path, JSON.stringify({ ...json, dimensions: 3 }));
    expect((await refusal(dominance)).message).toContain('holds a 3-dimensional embedder, expected 2');
  });
});
