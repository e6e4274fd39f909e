import { AbortError, InvalidArgumentError } from '@grag/core';

interface Waiter {
  grant: (release: () => void) => void;
}

/**
 * A counting semaphore with a FIFO queue. One instance bounds the requests in flight of one
 * provider instance (chat and embedding calls together).
 */
export class Semaphore {
  /** Largest number of holders at once. */
  readonly limit: number;
  #active = 0;
  readonly #queue: Waiter[] = [];

  constructor(limit: number) {
    if (!(Number.isInteger(limit) && limit >= 1) && limit !== Number.POSITIVE_INFINITY) {
      throw new InvalidArgumentError(
        'concurrency',
        `@grag/openai: concurrency must be a positive integer (or Infinity), got ${limit}.`,
      );
    }
    this.limit = limit;
  }

  /** Holders right now. */
  get active(): number {
    return this.#active;
  }

  /** Callers waiting for a permit. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Wait for a permit. Resolves with a `release` function that must be called exactly once (later
   * calls do nothing). Rejects with an {@link AbortError} when `signal` aborts while waiting.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new AbortError(undefined, { cause: signal.reason }));
    if (this.#active < this.limit) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.#queue.indexOf(waiter);
        if (at >= 0) this.#queue.splice(at, 1);
        reject(new AbortError(undefined, { cause: signal?.reason }));
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      this.#queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      // Hand the permit straight to the next waiter, so the count never dips and new callers
      // cannot overtake the queue.
      if (next) next.grant(this.#releaser());
      else this.#active--;
    };
  }
}
