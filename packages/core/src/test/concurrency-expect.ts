/** The concurrency limits every build of a method with model stages must keep. */
import { expect } from 'vitest';
import type { BuildContext } from '../contracts/method.js';
import type { Embedder } from '../contracts/models.js';
import type { TaskSuite } from '../contracts/tasks.js';
import { trackedBuild } from './fixtures.js';

/**
 * Expect `build` to send at most the runtime concurrency of task calls at once, or the build
 * option `concurrency` when set: 3 at once with runtime 3, 1 with runtime 3 and `concurrency: 1`,
 * 5 with runtime 1 and `concurrency: 5`. Each build runs on new `tasks()` and `embedder()`
 * (tracked by {@link trackedBuild}) and must make `extractions` graph extractions, at least five.
 */
export async function expectConcurrencyLimits(
  tasks: () => TaskSuite,
  embedder: () => Embedder,
  extractions: number,
  build: (ctx: BuildContext, options: { concurrency?: number }) => Promise<unknown>,
): Promise<void> {
  const peak = async (runtime: number, option?: number) => {
    const seen = await trackedBuild(tasks(), embedder(), { runtime, option }, build);
    expect(seen.extracted).toBe(extractions);
    return seen.peak;
  };
  expect(await peak(3)).toBe(3);
  expect(await peak(3, 1)).toBe(1);
  expect(await peak(1, 5)).toBe(5);
}
