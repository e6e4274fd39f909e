/**
 * JSON artifacts of any size, in parts: an object whose array fields grow with the corpus is written
 * as gzipped JSON files of at most about {@link PART_CHARS} characters each, so that no string (the
 * JSON text written, or read back) grows with the corpus: V8 refuses strings of more than about 2^29
 * characters ("Invalid string length"), which one JSON text of a 10M-token corpus passes.
 *
 * Part 0 is `file` itself: the object's other fields, `parts` (how many files there are, when more
 * than one) and the first slice of each array; part i (i ≥ 1) is `<stem>.part-<i>.json` with the
 * next slices (every array field present, possibly empty). A file without `parts` is the whole
 * object, as format 2 wrote it, so one reader reads both.
 */
import type { IndexWriter, OpenedIndex, Schema } from '@grag/core/kit';
import { compress, decompressed, shapeIssue, validate } from '@grag/core/kit';

/** Characters of JSON one part holds at most (a single longer record is a part of its own). */
export const PART_CHARS = 1 << 26;

/** The name of part `i` (≥ 1) of `file` (`graph.json` → `graph.part-1.json`). */
export function partName(file: string, i: number): string {
  const stem = file.endsWith('.json') ? file.slice(0, -'.json'.length) : file;
  return `${stem}.part-${i}.json`;
}

/**
 * Write `value` as {@link writeJsonParts}' parts: its array fields sliced so that each part's JSON
 * stays within `maxChars` characters (each record serialized once), gzipped. `stride[key]`: the
 * records of that field go in groups of this many, never split across parts (an edge list's pairs).
 */
export async function writeJsonParts(
  out: Pick<IndexWriter, 'bytes'>,
  file: string,
  value: Readonly<Record<string, unknown>>,
  maxChars: number = PART_CHARS,
  stride: Readonly<Record<string, number>> = {},
): Promise<void> {
  const arrayKeys = Object.keys(value).filter((key) => Array.isArray(value[key]));
  const other: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) if (!Array.isArray(field)) other[key] = field;
  let slices = new Map<string, string[]>();
  let chars = 0;
  let part0: Map<string, string[]> | undefined;
  let parts = 0;
  const flush = async () => {
    if (parts === 0) part0 = slices;
    else await writePart(out, partName(file, parts), render(arrayKeys, slices, other));
    parts++;
    slices = new Map();
    chars = 0;
  };
  for (const key of arrayKeys) {
    const records = value[key] as unknown[];
    const step = stride[key] ?? 1;
    for (let i = 0; i < records.length; i += step) {
      let text = JSON.stringify(records[i]) ?? 'null';
      for (let j = i + 1; j < i + step && j < records.length; j++)
        text += `,${JSON.stringify(records[j]) ?? 'null'}`;
      if (chars > 0 && chars + text.length + 1 > maxChars) await flush();
      let list = slices.get(key);
      if (list === undefined) {
        list = [];
        slices.set(key, list);
      }
      list.push(text);
      chars += text.length + 1;
    }
  }
  if (parts === 0) {
    // Everything fits in one file: the object as a single JSON file (format 2's layout).
    await writePart(out, file, render(arrayKeys, slices, other));
    return;
  }
  if (chars > 0) await flush();
  await writePart(out, file, render(arrayKeys, part0!, { ...other, parts }));
}

/**
 * One part's JSON: `extra`'s fields (the object's other fields, small, in every part so that each
 * part passes the object's schema), then each array field with its slice (possibly empty).
 */
function render(
  arrayKeys: readonly string[],
  slices: ReadonlyMap<string, string[]>,
  extra: Readonly<Record<string, unknown>>,
): string {
  const fields: string[] = [];
  for (const [key, field] of Object.entries(extra))
    fields.push(`${JSON.stringify(key)}:${JSON.stringify(field)}`);
  for (const key of arrayKeys) fields.push(`${JSON.stringify(key)}:[${(slices.get(key) ?? []).join(',')}]`);
  return `{${fields.join(',')}}`;
}

function writePart(out: Pick<IndexWriter, 'bytes'>, name: string, json: string): Promise<void> {
  return out.bytes(name, compress(new TextEncoder().encode(json)));
}

/**
 * Read an object written by {@link writeJsonParts} (or one plain JSON file of it): each part checked
 * with `schema`, the array fields concatenated in part order.
 * @throws IndexFormatError naming the part that is missing or of the wrong shape.
 */
export async function readJsonParts<T extends object>(
  opened: OpenedIndex<unknown, unknown>,
  file: string,
  schema: Schema<T>,
): Promise<T> {
  return decodeJsonParts(opened, file, schema, await jsonPartBytes(opened, file));
}

/**
 * The stored bytes of `file` and of the parts of it the index holds (by name), read now so that
 * {@link decodeJsonParts} can decode them later, synchronously.
 */
export async function jsonPartBytes(
  opened: OpenedIndex<unknown, unknown>,
  file: string,
): Promise<Map<string, Uint8Array>> {
  const stem = partName(file, 0).slice(0, -'0.json'.length);
  const bytes = new Map<string, Uint8Array>();
  for (const name of opened.names) {
    if (name === file || (name.startsWith(stem) && name.endsWith('.json'))) {
      bytes.set(name, await opened.bytes(name));
    }
  }
  return bytes;
}

/**
 * {@link readJsonParts} from the bytes {@link jsonPartBytes} read: each part decompressed, parsed
 * and checked as `opened.json` does.
 * @throws IndexFormatError naming the part that is missing, unreadable or of the wrong shape.
 */
export function decodeJsonParts<T extends object>(
  opened: OpenedIndex<unknown, unknown>,
  file: string,
  schema: Schema<T>,
  bytes: ReadonlyMap<string, Uint8Array>,
): T {
  const json = (name: string): Record<string, unknown> => {
    const stored = bytes.get(name);
    if (stored === undefined) throw opened.error(name, 'is missing');
    const where = opened.locate(name);
    const text = decompressed(stored, where);
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(text));
    } catch (error) {
      throw opened.error(name, `cannot be read (${(error as Error).message})`, { cause: error });
    }
    return validate(schema, parsed, where) as Record<string, unknown>;
  };
  const whole = json(file);
  const parts = whole.parts;
  delete whole.parts;
  opened.check(file, () => {
    if (parts !== undefined && !(Number.isSafeInteger(parts) && (parts as number) >= 2)) {
      shapeIssue('parts', `is ${JSON.stringify(parts)}, not a count of parts (an integer ≥ 2)`);
    }
  });
  for (let i = 1; i < ((parts as number | undefined) ?? 1); i++) {
    const name = partName(file, i);
    const part = json(name);
    for (const [key, field] of Object.entries(part)) {
      if (!Array.isArray(field)) continue;
      const into = whole[key];
      if (!Array.isArray(into)) opened.check(name, () => shapeIssue(key, `continues no list of ${file}`));
      for (const record of field) (into as unknown[]).push(record);
    }
  }
  return whole as T;
}
