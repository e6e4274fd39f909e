/** Small 32-bit hash functions for feature hashing. */

/** FNV-1a over the UTF-16 code units of `text[start..end)`, from `seed`. Unsigned 32-bit. */
export function fnv1a(text: string, seed = 0x811c9dc5, start = 0, end = text.length): number {
  let h = seed >>> 0;
  for (let i = start; i < end; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** MurmurHash3's 32-bit finalizer: spreads the bits of `h` (unsigned 32-bit result). */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Base64 of the bytes of a typed array. */
export function typedToBase64(array: Float32Array): string {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString('base64');
}

/** A Float32Array from the base64 written by {@link typedToBase64}, or null when the size is wrong. */
export function base64ToFloat32(text: string, length: number): Float32Array | null {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.byteLength !== length * 4) return null;
  const out = new Float32Array(length);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}
