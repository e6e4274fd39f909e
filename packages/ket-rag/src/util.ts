import { readFile, writeFile } from 'node:fs/promises';
import { IndexFormatError } from '@grag/core';

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
