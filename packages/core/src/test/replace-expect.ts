/** The replacement step every method's update tests take: a document added under an indexed id. */
import { expect } from 'vitest';
import type { BuildContext, IndexUpdate, Method } from '../contracts/method.js';
import type { Document } from '../contracts/types.js';

/**
 * Update `index` (built on `docs`) by adding `replacement`, a document under an id it holds, and
 * expect the update to report it replaced, nothing added or removed. Returns the update and the
 * corpus a fresh build compares with: `docs` without the replaced document, then `replacement`.
 */
export async function updateReplacing<Index>(
  method: Pick<Method<Index, never, never>, 'update'>,
  index: Index,
  replacement: Document,
  ctx: BuildContext,
  docs: readonly Document[],
): Promise<IndexUpdate<Index> & { corpus: Document[] }> {
  const update = await method.update!(index, { add: [replacement] }, ctx);
  expect(update.report.documents).toEqual({ added: [], replaced: [replacement.id], removed: [] });
  return { ...update, corpus: [...docs.filter((d) => d.id !== replacement.id), replacement] };
}
