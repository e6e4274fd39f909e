/**
 * IEEE 754 half precision (float16), the encoding of vector rows stored at `'float16'` precision
 * (see `encodeVectorRows`): conversions from and to float32, written out as Node 20 has neither
 * `Math.f16round` nor `Float16Array`.
 */

/** Largest finite float16. */
export const FLOAT16_MAX = 65504;
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * The float16 bits nearest to `x` rounded to float32 (ties to even; ±Infinity beyond the float16
 * range, NaN kept NaN): IEEE 754's conversion, written out as Node 20 has no `Math.f16round`.
 */
export function toFloat16Bits(x: number): number {
  f32[0] = x;
  const b = u32[0]!;
  const sign = (b >>> 16) & 0x8000;
  const exponent = (b >>> 23) & 0xff;
  let mantissa = b & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa !== 0 ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    // A float16 subnormal m · 2^-24: m is the float32 significand shifted right by 14 - e.
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    let half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && (half & 1) === 1)) half++;
    return sign | half;
  }
  // A carry out of the mantissa moves to the exponent, which is the correct rounding (to Infinity
  // past the largest finite value).
  let half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1)) half++;
  return sign | half;
}

/** The value of float16 bits `h` (exact in float32). */
export function fromFloat16Bits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >>> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
  return sign * (1024 + mantissa) * 2 ** (exponent - 25);
}

/** Every float16 value by its bits, made on first use (256 KB). */
let float16Table: Float32Array | undefined;
function float16Values(): Float32Array {
  if (float16Table === undefined) {
    float16Table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) float16Table[h] = fromFloat16Bits(h);
  }
  return float16Table;
}

/** The `count` little-endian float16 values at byte `at` of `bytes`, as float32. */
export function decodeFloat16(bytes: Uint8Array, at: number, count: number): Float32Array {
  const table = float16Values();
  const out = new Float32Array(count);
  for (let k = 0, b = at; k < count; k++, b += 2) out[k] = table[bytes[b]! | (bytes[b + 1]! << 8)]!;
  return out;
}

/**
 * The index of the first of the `count` little-endian float16 values at byte `at` that is infinite
 * or NaN (its exponent bits all set), or -1; read from the bits, nothing decoded.
 */
export function firstNonFiniteFloat16(bytes: Uint8Array, at: number, count: number): number {
  for (let k = 0, b = at + 1; k < count; k++, b += 2) if ((bytes[b]! & 0x7c) === 0x7c) return k;
  return -1;
}
