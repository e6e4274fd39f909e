/**
 * The shared steps of a method's index-format tests: save and load an index and retrieve exactly
 * what the index in memory does; rewrite the saved index as an older format wrote it and check it
 * still loads and retrieves the same; check a format version the method does not read is refused.
 */
import { cp, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { decodeVectorRows, decompressed } from '../artifact-codec.js';
import { IndexFormatError } from '../contracts/errors.js';
import type { BuildContext } from '../contracts/method.js';
import type { Retrieval } from '../contracts/types.js';
import type { VectorIndexFactory } from '../contracts/vector.js';
import { flatIndexFactory } from '../vector/flat.js';
import { expectIdenticalRetrievals } from './retrievals.js';

/** What differs from method to method in {@link checkIndexFormats}. */
export interface IndexFormatChecks<I> {
  /** Build the index the checks save (and retrieve from, as the reference). */
  build: () => Promise<I>;
  /** What saves and loads the index (a `Method`). */
  method: { save(index: I, dir: string): Promise<unknown>; load(dir: string, ctx: BuildContext): Promise<I> };
  /** The context to load with (a function: a fresh context for every load). */
  context: BuildContext | (() => BuildContext);
  /** What the index retrieves for the test's questions (in every mode the test compares). */
  retrievals: (index: I) => Promise<Retrieval[]>;
  /** More to compare of each retrieval (passed to {@link expectIdenticalRetrievals}). */
  also?: (r: Retrieval) => unknown;
  /** The directory to save to; the format-1 copy goes to `${dir}-v1`, the refused one to `${dir}-refused`. */
  dir: string;
  /** Files of the saved index that must be gzipped JSON. */
  gzipped?: readonly string[];
  /** The files the saved directory must hold, exactly (in any order). */
  files?: readonly string[];
  /** Further checks of the saved directory. */
  saved?: (dir: string, index: I) => unknown;
  /** Further checks of a loaded index (`format` 'saved' for the index as saved, 1 for the rewritten copy). */
  loaded?: (loaded: I, index: I, format: 'saved' | 1) => unknown;
  /**
   * Rewrite the copy of the saved index in `dir` as format 1 wrote it (see {@link rewriteAsFormat1}):
   * it must then say format version 1, load and retrieve exactly the same. Left out: no such check.
   */
  version1?: (dir: string, index: I) => Promise<unknown>;
  /**
   * A copy of the saved index whose manifest says `formatVersion` (9 unless given) must be refused
   * with an `IndexFormatError` whose message matches `message`. Left out: no such check.
   */
  refused?: { formatVersion?: number; message: RegExp };
}

/** An approximate-looking factory (not exact, though flat): its indexes are saved, as HNSW's are. */
export const savedFlatIndexFactory: VectorIndexFactory = {
  kind: 'flat',
  create: flatIndexFactory.create,
  load: flatIndexFactory.load,
};

/** The exact flat factory (its indexes rebuilt from the saved vectors) and {@link savedFlatIndexFactory}, by name. */
export const EXACT_AND_SAVED_FACTORIES = [
  ['exact', flatIndexFactory],
  ['saved', savedFlatIndexFactory],
] as const;

/** What {@link checkIndexFormats} built, retrieved and loaded, for further checks. */
export interface IndexFormatResult<I> {
  index: I;
  want: Retrieval[];
  loaded: I;
  /** The format-1 copy as loaded (when `version1` was given). */
  version1?: I;
  /** The error the refused copy was loaded with (when `refused` was given). */
  refusal?: Error;
}

/**
 * Build an index, save and load it and expect identical retrievals; then (as asked) rewrite a copy
 * as format 1 and expect it to load and retrieve identically, and write a manifest of a format the
 * method does not read and expect it refused. Call it inside a vitest test.
 */
export async function checkIndexFormats<I>(checks: IndexFormatChecks<I>): Promise<IndexFormatResult<I>> {
  const load = (dir: string) =>
    checks.method.load(dir, typeof checks.context === 'function' ? checks.context() : checks.context);
  const index = await checks.build();
  const want = await checks.retrievals(index);
  await checks.method.save(index, checks.dir);
  const loaded = await load(checks.dir);
  await checks.loaded?.(loaded, index, 'saved');
  expectIdenticalRetrievals(await checks.retrievals(loaded), want, checks.also);
  if (checks.files) expect((await readdir(checks.dir)).sort()).toEqual([...checks.files].sort());
  for (const file of checks.gzipped ?? []) {
    const bytes = new Uint8Array(await readFile(join(checks.dir, file)));
    expect(bytes[0], file).toBe(0x1f); // gzip
    expect(() => JSON.parse(new TextDecoder().decode(decompressed(bytes, file))), file).not.toThrow();
  }
  await checks.saved?.(checks.dir, index);
  const result: IndexFormatResult<I> = { index, want, loaded };

  if (checks.version1) {
    const v1 = `${checks.dir}-v1`;
    await cp(checks.dir, v1, { recursive: true });
    await checks.version1(v1, index);
    expect(JSON.parse(await readFile(join(v1, 'manifest.json'), 'utf8')).formatVersion).toBe(1);
    const old = await load(v1);
    await checks.loaded?.(old, index, 1);
    expectIdenticalRetrievals(await checks.retrievals(old), want, checks.also);
    result.version1 = old;
  }

  if (checks.refused) {
    const future = `${checks.dir}-refused`;
    await cp(checks.dir, future, { recursive: true });
    const manifest = JSON.parse(await readFile(join(future, 'manifest.json'), 'utf8'));
    manifest.formatVersion = checks.refused.formatVersion ?? 9;
    await writeFile(join(future, 'manifest.json'), JSON.stringify(manifest));
    const error = await load(future).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(checks.refused.message);
    result.refusal = error as Error;
  }
  return result;
}

/** A vector collection format 2 saves as lossless rows and format 1 saved as packed float32. */
export interface Format1Vectors {
  /** The format-2 artifact (`embeddings.rows`). */
  from: string;
  /** The format-1 artifact (`embeddings.f32`). */
  to: string;
  rows: number;
  dimensions: number;
}

/**
 * Rewrite the format-2 index in `dir` as format 1 wrote it: the manifest says version 1 and lists
 * the renamed files, the `gunzip` files plain JSON, and each of `vectors` packed float32 rows in
 * place of lossless vector rows.
 */
export async function rewriteAsFormat1(
  dir: string,
  layout: { gunzip: readonly string[]; vectors: readonly Format1Vectors[] },
): Promise<void> {
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  const renamed = new Map(layout.vectors.map((v) => [v.from, v.to]));
  manifest.formatVersion = 1;
  manifest.files = manifest.files.map((f: string) => renamed.get(f) ?? f).sort();
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  for (const file of layout.gunzip) {
    await writeFile(join(dir, file), decompressed(new Uint8Array(await readFile(join(dir, file))), file));
  }
  for (const { from, to, rows, dimensions } of layout.vectors) {
    const bytes = new Uint8Array(await readFile(join(dir, from)));
    const packed = new Float32Array(rows * dimensions);
    decodeVectorRows(bytes, rows, dimensions, from).forEach((row, i) => {
      packed.set(row, i * dimensions);
    });
    await writeFile(join(dir, to), new Uint8Array(packed.buffer));
    await unlink(join(dir, from));
  }
}
