import { OutputError } from '@grag/core';
import { creationProblem } from '@grag/core/store';

/**
 * Check, before a build starts, that the model-call cache directory `dir` can be used: it is a
 * directory, or can be created in its nearest existing ancestor ({@link creationProblem}). Creates
 * nothing that stays. Throws {@link OutputError} naming the directory, and the file in the way.
 */
export async function checkCacheDir(dir: string): Promise<void> {
  const problem = await creationProblem(dir);
  if (problem === undefined) return;
  const hint = 'Pass another --cache-dir, or --no-cache.';
  throw new OutputError(
    dir,
    problem.kind === 'file'
      ? `Cannot keep the model-call cache in ${dir}: ${problem.at} is a file, not a directory. ${hint}`
      : problem.kind === 'unreadable'
        ? `Cannot keep the model-call cache in ${dir} (${problem.code}). ${hint}`
        : `Cannot create the model-call cache directory ${dir} (${problem.code}). ${hint}`,
  );
}
