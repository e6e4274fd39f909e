/**
 * Tables that give each distinct value a position once, in order of first sight: the interning
 * that graph builders, codecs and batch deduplication share.
 */

/** A table of values, each once by its `key`: `ref(v)` is v's position, added on first sight. */
export function keyedTable<T>(key: (value: T) => string): { values: T[]; ref: (value: T) => number } {
  const values: T[] = [];
  const at = new Map<string, number>();
  const ref = (value: T): number => {
    const k = key(value);
    let i = at.get(k);
    if (i === undefined) {
      i = values.length;
      at.set(k, i);
      values.push(value);
    }
    return i;
  };
  return { values, ref };
}

/** A table of strings, each once: `ref(s)` is its position, added on first sight. */
export function stringTable(): { strings: string[]; ref: (s: string) => number } {
  const { values, ref } = keyedTable((s: string) => s);
  return { strings: values, ref };
}
