import { writeFile } from 'node:fs/promises';
import { float32Rows, readBinary } from '@grag/core';

/** Write vectors of equal length as one little-endian float32 file. */
export async function writeVectors(path: string, vectors: readonly ArrayLike<number>[]): Promise<void> {
  const d = vectors[0]?.length ?? 0;
  const data = new Float32Array(vectors.length * d);
  vectors.forEach((v, i) => {
    data.set(v, i * d);
  });
  await writeFile(path, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
}

/** Read `count` vectors of `dimensions` floats written by {@link writeVectors}; `IndexFormatError` naming the file otherwise. */
export async function readVectors(path: string, count: number, dimensions: number): Promise<Float32Array[]> {
  return float32Rows(await readBinary(path), count, dimensions, path);
}
