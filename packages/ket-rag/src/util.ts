import { readFile, writeFile } from 'node:fs/promises';
import { IndexFormatError, throwIfAborted } from '@grag/core';

/**
 * Run `fn` over `items` with at most `limit` calls in flight; results keep input order. Stops
 * starting new calls once `signal` is aborted; the first error rejects.
 */
export async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      throwIfAborted(signal);
      const i = next++;
      if (i >= items.length) return;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** Write vectors of equal length as one little-endian float32 file. */
export async function writeVectors(path: string, vectors: readonly ArrayLike<number>[]): Promise<void> {
  const d = vectors[0]?.length ?? 0;
  const data = new Float32Array(vectors.length * d);
  vectors.forEach((v, i) => {
    data.set(v, i * d);
  });
  await writeFile(path, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
}

/** Read `count` vectors of `dimensions` floats written by {@link writeVectors}. */
export async function readVectors(path: string, count: number, dimensions: number): Promise<Float32Array[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new IndexFormatError(path, undefined, `Cannot read ${path}; rebuild the index.`, { cause: error });
  }
  if (bytes.byteLength !== count * dimensions * 4) {
    throw new IndexFormatError(
      path,
      undefined,
      `${path} holds ${bytes.byteLength} bytes, expected ${count} × ${dimensions} float32; rebuild the index.`,
    );
  }
  const data = new Float32Array(count * dimensions);
  new Uint8Array(data.buffer).set(bytes);
  return Array.from({ length: count }, (_, i) => data.subarray(i * dimensions, (i + 1) * dimensions));
}
