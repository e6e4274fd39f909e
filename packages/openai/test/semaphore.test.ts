import { AbortError } from '@grag/core';
import { describe, expect, it } from 'vitest';
import { Semaphore } from '../src/index.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('Semaphore', () => {
  it('grants permits up to the limit and queues the rest in arrival order', async () => {
    const semaphore = new Semaphore(2);
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const waiters = [0, 1, 2, 3].map((i) =>
      semaphore.acquire().then((release) => {
        order.push(i);
        releases[i] = release;
      }),
    );
    await tick();
    expect(order).toEqual([0, 1]);
    expect([semaphore.active, semaphore.waiting]).toEqual([2, 2]);
    releases[1]!();
    await tick();
    expect(order).toEqual([0, 1, 2]);
    releases[0]!();
    await Promise.all(waiters);
    expect(order).toEqual([0, 1, 2, 3]);
    releases[2]!();
    releases[3]!();
    expect([semaphore.active, semaphore.waiting]).toEqual([0, 0]);
  });

  it('ignores a second release of the same permit', async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire();
    release();
    release();
    expect(semaphore.active).toBe(0);
    const again = await semaphore.acquire();
    expect(semaphore.active).toBe(1);
    const third = semaphore.acquire();
    await tick();
    expect(semaphore.waiting).toBe(1);
    again();
    (await third)();
    expect(semaphore.active).toBe(0);
  });

  it('drops a waiter whose signal aborts and rejects it with AbortError', async () => {
    const semaphore = new Semaphore(1);
    const held = await semaphore.acquire();
    const controller = new AbortController();
    const waiting = semaphore.acquire(controller.signal);
    const next = semaphore.acquire();
    controller.abort();
    await expect(waiting).rejects.toSatisfy(AbortError.isInstance);
    expect(semaphore.waiting).toBe(1);
    held();
    (await next)();
    expect(semaphore.active).toBe(0);
  });

  it('rejects limits that are not positive integers', () => {
    expect(() => new Semaphore(0)).toThrow(/concurrency/);
    expect(() => new Semaphore(1.5)).toThrow(/concurrency/);
    expect(new Semaphore(Number.POSITIVE_INFINITY).limit).toBe(Number.POSITIVE_INFINITY);
  });
});
