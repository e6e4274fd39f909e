import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexFormatError, indexVectors, type TaskSuite } from '../src/index.js';
import {
  createBuildContext,
  flatIndexFactory,
  indexProviders,
  MANIFEST_FILE,
  openMethodIndex,
  opt,
  packFloat32Rows,
  resolveOptions,
  v,
  validateOptions,
  writeMethodIndex,
} from '../src/kit.js';
import { createScriptedEmbedder } from '../src/test/index.js';
import { temporaryRoot } from '../src/test/vitest.js';

const root = temporaryRoot('grag-method-index-');

const DEFAULTS = { k: 3, mode: 'a' };
const params = (saved: Record<string, unknown>) => {
  const o = resolveOptions(DEFAULTS, saved);
  validateOptions('demo load', o, { k: opt.positiveInt, mode: opt.oneOf('a', 'b') });
  return o;
};
const context = (modelId = 'e1', tasksId = 't1') =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 2, modelId }),
    tasks: { id: tasksId } as TaskSuite,
  });
const rows = [Float32Array.from([1, 0]), Float32Array.from([0.5, -2])];

async function written(
  name: string,
  uses?: ('embedder' | 'tasks' | 'vectorIndex')[],
  ctx = context(),
): Promise<string> {
  const dir = join(root(), name);
  await writeMethodIndex(
    dir,
    {
      method: 'demo',
      formatVersion: 2,
      providers: indexProviders(ctx),
      ...(uses ? { uses } : {}),
      params: { k: 5 },
      stats: { units: 2 },
    },
    async (out) => {
      await out.json('units.json', { ids: ['x', 'y'] });
      await out.float32Rows('rows.f32', rows, 2);
      await out.vectors('vectors.bin', indexVectors(flatIndexFactory, rows));
    },
  );
  return dir;
}

describe('writeMethodIndex / openMethodIndex', () => {
  it('round-trips files, params (resolved over the defaults) and stats, fingerprinting every provider', async () => {
    const dir = await written('round-trip');
    const manifest = JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8'));
    expect(manifest.providers).toEqual({ embedder: 'scripted:e1:2', tasks: 't1', vectorIndex: 'flat' });
    const opened = await openMethodIndex(dir, context(), { method: 'demo', formatVersion: 2, params });
    expect(opened.params).toEqual({ k: 5, mode: 'a' });
    expect(opened.stats).toEqual({ units: 2 });
    expect(await opened.json('units.json', v.object({ ids: v.array(v.string()) }))).toEqual({
      ids: ['x', 'y'],
    });
    expect(await opened.float32Rows('rows.f32', 2)).toEqual(rows);
    const vectors = await opened.vectors('vectors.bin', 2);
    expect(vectors.search([1, 0], 1)[0]!.id).toBe(0);
    await expect(opened.vectors('vectors.bin', 3)).rejects.toThrow(IndexFormatError);
    await expect(opened.float32Rows('rows.f32', 3)).rejects.toThrow(/holds 2 vectors, expected 3/);
  });

  it('names every provider that differs in one error that says to rebuild', async () => {
    const dir = await written('providers');
    const error = await openMethodIndex(dir, context('e2', 't2'), {
      method: 'demo',
      formatVersion: 2,
      params,
    }).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `${dir} was built with embedder 'scripted:e1:2' (now 'scripted:e2:2'), tasks 't1' (now 't2'). Use the same providers or rebuild the index.`,
    );
  });

  it('names the factory to load with when the vector index differs', async () => {
    const dir = await written('vector-index', ['vectorIndex']);
    // An index built with the flat index, opened with another kind (as one built with HNSW is by
    // the default context).
    const other = { ...context(), vectorIndex: { ...flatIndexFactory, kind: 'other' } };
    const error = await openMethodIndex(dir, other, {
      method: 'demo',
      formatVersion: 2,
      uses: ['vectorIndex'],
      params,
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `${dir} was built with vectorIndex 'flat' (now 'other'). Use the same vectorIndex or rebuild the index. Load it with \`createBuildContext({ …, vectorIndex: flatIndexFactory })\`, flatIndexFactory from @grag/core/kit.`,
    );
  });

  it('names hnswIndexFactory() and @grag/hnsw, in one line, for an index built with HNSW opened with the flat index', async () => {
    // As the CLI builds by default (vectorIndex 'hnsw'), then loaded in code with a default context.
    const hnsw = { ...context(), vectorIndex: { ...flatIndexFactory, kind: 'hnsw' } };
    const dir = await written('vector-index-hnsw', ['vectorIndex'], hnsw);
    const error = await openMethodIndex(dir, context(), {
      method: 'demo',
      formatVersion: 2,
      uses: ['vectorIndex'],
      params,
    }).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `${dir} was built with vectorIndex 'hnsw' (now 'flat'). Use the same vectorIndex or rebuild the index. Load it with \`createBuildContext({ …, vectorIndex: hnswIndexFactory() })\`, hnswIndexFactory from @grag/hnsw.`,
    );
    expect((error as Error).message).not.toContain('\n');
  });

  it('checks only the providers the index uses', async () => {
    const dir = await written('uses', ['vectorIndex']);
    const opened = await openMethodIndex(dir, context('e2', 't2'), {
      method: 'demo',
      formatVersion: 2,
      uses: ['vectorIndex'],
      params,
    });
    expect(opened.params.k).toBe(5);
  });

  it('refuses saved params that fail the checks, naming the manifest and the option', async () => {
    const dir = await written('params');
    const path = join(dir, MANIFEST_FILE);
    const manifest = JSON.parse(await readFile(path, 'utf8'));
    manifest.params.k = 'five';
    await writeFile(path, JSON.stringify(manifest));
    await expect(
      openMethodIndex(dir, context(), { method: 'demo', formatVersion: 2, params }),
    ).rejects.toThrow(
      `${path}: params: demo load: k must be a positive integer (got "five"); rebuild the index.`,
    );
  });

  it('refuses another method or format version', async () => {
    const dir = await written('format');
    await expect(
      openMethodIndex(dir, context(), { method: 'other', formatVersion: 2, params }),
    ).rejects.toThrow(/holds a 'demo' index, not 'other'/);
    await expect(
      openMethodIndex(dir, context(), { method: 'demo', formatVersion: 3, params }),
    ).rejects.toThrow(/format version 2; this version reads 3\. Rebuild the index\./);
  });

  it('packs float32 rows little-endian and refuses a row of another length', () => {
    const bytes = packFloat32Rows([[1, -2]], 2);
    expect([...bytes]).toEqual([0, 0, 128, 63, 0, 0, 0, 192]);
    expect(() => packFloat32Rows([[1]], 2)).toThrow(/row 0 has 1 components, expected 2/);
  });
});
