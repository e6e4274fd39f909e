/** Characters of an entity's descriptions embedded with its name. */
export const ENTITY_TEXT_CHARS = 1000;

/** Run `fn` over `items` with at most `limit` calls in flight; results in input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  onDone?: (done: number) => void,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
      onDone?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The text a document is fitted and shown with: its title line (when not already there), then its text. */
export function withTitle(title: string | undefined, text: string, includeTitle: boolean): string {
  if (!includeTitle || !title) return text;
  const firstLine = /^\s*#*\s*(.*)/.exec(text)?.[1]?.trim();
  return firstLine === title.trim() ? text : `${title}\n${text}`;
}

/** The text an entity is embedded with: its name, then its descriptions, clipped. */
export function entityText(name: string, descriptions: readonly string[]): string {
  const text = descriptions.length > 0 ? `${name}: ${descriptions.join(' ')}` : name;
  return text.length > ENTITY_TEXT_CHARS ? text.slice(0, ENTITY_TEXT_CHARS) : text;
}

/** `v` scaled to unit length (a zero vector stays zero). */
export function unit(v: ArrayLike<number>): Float32Array {
  let norm = 0;
  for (let c = 0; c < v.length; c++) norm += v[c]! * v[c]!;
  const out = Float32Array.from(v);
  if (norm > 0) {
    const inv = 1 / Math.sqrt(norm);
    for (let c = 0; c < out.length; c++) out[c]! *= inv;
  }
  return out;
}

/** `0, 1, …, n - 1` as a typed array. */
export function identity(n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** `0, 1, …, n - 1`. */
export function identityArray(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
