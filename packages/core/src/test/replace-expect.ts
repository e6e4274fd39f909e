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

/**
 * The whole replacement step of an update test: build `docs` with `context().ctx`, update that
 * index by adding `replacement` with the same context ({@link updateReplacing}'s expectations
 * included), and build the expected corpus afresh with a new `context()`. Returns the index built
 * on `docs` (`base`), the updated one (`index`), the fresh one (`fresh`) and the shared `ctx`.
 */
export async function replaceAndRebuild<Index, Options>(
  method: Pick<Method<Index, Options, never>, 'build' | 'update'>,
  docs: readonly Document[],
  replacement: Document,
  context: () => { ctx: BuildContext },
  options?: Partial<Options>,
): Promise<{ base: Index; index: Index; fresh: Index; ctx: BuildContext }> {
  const { ctx } = context();
  const base = await method.build([...docs], ctx, options);
  const { index, corpus } = await updateReplacing(method, base, replacement, ctx, docs);
  const fresh = await method.build(corpus, context().ctx, options);
  return { base, index, fresh, ctx };
}
