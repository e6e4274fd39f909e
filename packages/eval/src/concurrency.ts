/** Bounded concurrency for question runs and judge calls. */
import { throwIfAborted } from '@grag/core';

/**
 * Run `fn` over `items` with at most `limit` calls in flight; results keep the input order. The
 * first rejection stops new calls from starting and is rethrown once the running ones settle.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed: { error: unknown } | undefined;
  const worker = async () => {
    while (failed === undefined && next < items.length) {
      throwIfAborted(signal);
      const i = next++;
      try {
        results[i] = await fn(items[i] as T, i);
      } catch (error) {
        failed ??= { error };
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  if (failed) throw failed.error;
  return results;
}
