import { randomBytes } from 'node:crypto';
import { mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { OutputError } from '@grag/core';

/**
 * Check, before a build starts, that the model-call cache directory `dir` can be used: it is a
 * directory, or can be created in its nearest existing ancestor (probed by creating and removing
 * a directory there, one level: Node's recursive mkdir never returns under /proc). Creates
 * nothing that stays. Throws {@link OutputError} naming the directory, and the file in the way.
 */
export async function checkCacheDir(dir: string): Promise<void> {
  let at = resolve(dir);
  for (;;) {
    const info = await stat(at).catch((error: NodeJS.ErrnoException) => error);
    if (!(info instanceof Error)) {
      if (!info.isDirectory())
        throw new OutputError(
          dir,
          `Cannot keep the model-call cache in ${dir}: ${at} is a file, not a directory. Pass another --cache-dir, or --no-cache.`,
        );
      break;
    }
    if (info.code !== 'ENOENT' && info.code !== 'ENOTDIR')
      throw new OutputError(
        dir,
        `Cannot keep the model-call cache in ${dir} (${info.code ?? info.message}). Pass another --cache-dir, or --no-cache.`,
      );
    const parent = dirname(at);
    if (parent === at) return;
    at = parent;
  }
  const probe = join(at, `.grag-write-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(probe);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new OutputError(
      dir,
      `Cannot create the model-call cache directory ${dir} (${code ?? (error as Error).message}). Pass another --cache-dir, or --no-cache.`,
    );
  }
  await rmdir(probe);
}
