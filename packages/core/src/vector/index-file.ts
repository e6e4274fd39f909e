import { readFile } from 'node:fs/promises';
import { IndexFormatError } from '../contracts/errors.js';

/**
 * The bytes of the index file a vector index's `save` wrote at `path`.
 * @throws IndexFormatError with `message` (the read error as its cause) when it cannot be read.
 */
export async function readIndexFile(path: string, message: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new IndexFormatError(path, undefined, message, { cause: error });
  }
}
