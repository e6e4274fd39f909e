/** Scratch files for hnswlib, which reads and writes indexes only as files. */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Shared memory on Linux (hnswlib reads and writes files only: in memory they cost no disk writes). */
const SHARED_MEMORY = '/dev/shm';

/**
 * `use` of a scratch file (removed after): in shared memory where there is one, else, or when that
 * fails (e.g. a small /dev/shm), in the system's temporary directory.
 */
export async function inScratchFile<T>(use: (file: string) => Promise<T>): Promise<T> {
  const attempt = async (base: string): Promise<T> => {
    const dir = await mkdtemp(join(base, 'grag-hnsw-'));
    try {
      return await use(join(dir, 'index.hnsw'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
  if (process.platform === 'linux' && existsSync(SHARED_MEMORY)) {
    try {
      return await attempt(SHARED_MEMORY);
    } catch {
      // fall through to the temporary directory
    }
  }
  return attempt(tmpdir());
}
