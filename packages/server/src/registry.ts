/**
 * The indexes a server serves, by name. Each name holds one {@link ServedIndex}, an immutable
 * version; a write swaps in the next version with one assignment. A request picks its version once
 * and reads only that one, so every answer comes entirely from one version (the previous one until
 * the swap, the new one after), never from a mix.
 */
import { HttpError } from './errors.js';
import type { ServedIndex } from './indexes.js';

/** The served indexes by name, in the order they were given or created. */
export class IndexRegistry {
  readonly #slots = new Map<string, ServedIndex>();

  constructor(initial: readonly ServedIndex[]) {
    for (const served of initial) this.#slots.set(served.name, served);
  }

  /** The current version of every index, in order. */
  list(): ServedIndex[] {
    return [...this.#slots.values()];
  }

  /** Whether an index of that name is served. */
  has(name: string): boolean {
    return this.#slots.has(name);
  }

  /** The current version of `name`, or `undefined`. */
  find(name: string): ServedIndex | undefined {
    return this.#slots.get(name);
  }

  /**
   * The current version of the index a request names (`undefined`: the first), or a 404
   * `unknown_index` naming the available ones.
   */
  pick(name: string | undefined): ServedIndex {
    if (name === undefined) {
      const first = this.#slots.values().next().value;
      if (first) return first;
      throw new HttpError(
        404,
        'unknown_index',
        'This server serves no index yet; create one with POST /v1/indexes.',
      );
    }
    const found = this.#slots.get(name);
    if (found) return found;
    throw unknownIndex(name, this.list());
  }

  /** Serve `served` as the current version of its name (a new name is added at the end). */
  swap(served: ServedIndex): void {
    this.#slots.set(served.name, served);
  }

  /** Stop serving `name`. */
  delete(name: string): void {
    this.#slots.delete(name);
  }
}

/** The 404 for a name no index has: one line, naming the ones there are. */
export function unknownIndex(name: string, served: readonly ServedIndex[]): HttpError {
  const names = served.map((ix) => ix.name);
  return new HttpError(
    404,
    'unknown_index',
    `No index named ${JSON.stringify(name.slice(0, 100))}; ${
      names.length
        ? `available: ${names.join(', ')}`
        : 'this server serves none yet (create one with POST /v1/indexes)'
    }.`,
  );
}
