/**
 * Temporary directories for a test file, removed after its tests: one made before them
 * ({@link temporaryRoot}) or fresh ones made as the tests ask ({@link temporaryDirs}).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * A temporary directory made before the file's tests and removed after them, e.g.
 * `const root = temporaryRoot('my-method-format-')` and then `join(root(), 'v1')` inside a test.
 */
export function temporaryRoot(prefix: string): () => string {
  let root: string | undefined;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });
  return () => {
    if (!root) throw new Error('temporaryRoot: the directory is made in beforeAll');
    return root;
  };
}

/**
 * Fresh temporary directories on demand, every one removed after the file's tests, e.g.
 * `const freshDir = temporaryDirs()` at the top of the file and `const dir = await
 * freshDir('my-method-update-')` inside a test: each call makes a new directory (`mkdtemp` under the
 * system's temporary folder, named by `prefix`).
 */
export function temporaryDirs(): (prefix: string) => Promise<string> {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  return async (prefix) => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}
