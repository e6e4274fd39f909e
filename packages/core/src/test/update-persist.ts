/** The persistence step of every method's update tests: an updated index saved and loaded again. */
import type { BuildContext, IndexUpdate, Method } from '../contracts/method.js';
import type { IndexStore } from '../contracts/store.js';
import type { Document } from '../contracts/types.js';

/**
 * Build `docs` with `context().ctx`, update that index by removing the documents `remove` with the
 * same context, save the updated index to `target` and load it with a new `context()`. Returns the
 * update (`first`), the index loaded (`loaded`) and the context it was loaded with (`load`).
 */
export async function updateSavedAndLoaded<Index, Options, C extends { ctx: BuildContext }>(
  method: Pick<Method<Index, Options, never>, 'build' | 'update' | 'save' | 'load'>,
  docs: readonly Document[],
  remove: string[],
  context: () => C,
  target: string | IndexStore,
  options?: Partial<Options>,
): Promise<{ first: IndexUpdate<Index>; loaded: Index; load: C }> {
  const { ctx } = context();
  const first = await method.update!(await method.build([...docs], ctx, options), { remove }, ctx);
  await method.save(first.index, target);
  const load = context();
  return { first, loaded: await method.load(target, load.ctx), load };
}
