/** The header of the files of this package: magic bytes, format version and a JSON header. */
import type { Metric } from '@grag/core';
import { v, validate } from '@grag/core/kit';

const HEADER_BYTES = 16;

/** The JSON header: the settings of the index. */
export interface HnswMeta {
  metric: Metric;
  dimensions: number;
  M: number;
  efConstruction: number;
  efSearch: number;
  seed: number;
  /** SHA-256 (hex) of the hnswlib bytes that follow the header; absent in files of older versions. */
  sha256?: string;
}

export const metaSchema = v.object({
  metric: v.literal('cosine', 'ip', 'l2'),
  dimensions: v.int({ min: 1 }),
  M: v.int({ min: 2 }),
  efConstruction: v.int({ min: 1 }),
  efSearch: v.int({ min: 1 }),
  seed: v.int(),
  sha256: v.optional(v.string()),
});

/** Magic bytes, version, JSON header length and the JSON header of a file of this package. */
export function fileHeader(magic: string, version: number, meta: HnswMeta): Buffer {
  const json = Buffer.from(JSON.stringify(meta), 'utf8');
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(magic, 0, 'latin1');
  header.writeUInt32LE(version, 8);
  header.writeUInt32LE(json.length, 12);
  return Buffer.concat([header, json]);
}

/** The header {@link fileHeader} wrote and the bytes after it; `fail` for a wrong magic, version or header. */
export function readFileHeader(
  data: Uint8Array,
  magic: string,
  expected: number,
  fail: (message: string, version?: number, cause?: unknown) => never,
  source: string,
): { meta: HnswMeta; version: number; rest: Uint8Array } {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 8) !== magic) {
    const writer = magic === 'GRAGHNSW' ? 'HnswIndex.save' : 'HnswIndex.exportGraph';
    fail(`is not a grag HNSW index (wrong magic bytes; it is written by ${writer}); rebuild the index.`);
  }
  const version = bytes.readUInt32LE(8);
  if (version !== expected) {
    fail(
      `has format version ${version}; this @grag/hnsw reads version ${expected}. Rebuild the index.`,
      version,
    );
  }
  const jsonLength = bytes.readUInt32LE(12);
  if (HEADER_BYTES + jsonLength > bytes.length)
    fail('is truncated (header runs past the end); rebuild the index.', version);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8', HEADER_BYTES, HEADER_BYTES + jsonLength));
  } catch (error) {
    return fail('has an unreadable JSON header; rebuild the index.', version, error);
  }
  const meta: HnswMeta = validate(metaSchema, parsed, `${source} (JSON header)`);
  return { meta, version, rest: bytes.subarray(HEADER_BYTES + jsonLength) };
}
