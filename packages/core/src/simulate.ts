/**
 * Deterministic stand-in vectors for models that are not called: scripted embedders in tests
 * (`@grag/core/test`) and the CLI's simulated embedder for `grag index --estimate`.
 */

/** FNV-1a hash of a string. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * A bag-of-words vector: each lower-cased word adds a fixed pseudo-random vector, so texts that
 * share words are similar. Deterministic; used by simulated and scripted embedders.
 */
export function hashedBagOfWords(text: string, dimensions: number): Float32Array {
  const v = new Float32Array(dimensions);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = fnv1a(word);
    for (let d = 0; d < dimensions; d++) {
      h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
      v[d]! += (h / 0xffffffff) * 2 - 1;
    }
  }
  return v;
}
