/**
 * A fuzz driver for index loaders: damage one file of a saved index directory per case (byte
 * flips, truncation, deletion, JSON of another shape, a value deep in the JSON swapped for one of
 * another type), then load the index and run a retrieval. Every error must be a `GragError`;
 * anything else (a TypeError, a RangeError, …) is a defect of the loader's validation. Import from
 * `@grag/core/test`; it does not depend on a test runner.
 */
import { cp, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { GragError } from '../contracts/errors.js';
import { mulberry32 } from './random.js';

/** Options of {@link fuzzIndexLoad}. */
export interface IndexFuzzOptions<I> {
  /** A saved, loadable index directory. It is not modified: the fuzz works on a copy. */
  dir: string;
  /** Load the index at `dir` (the copy). */
  load: (dir: string) => Promise<I>;
  /** Use the loaded index once, e.g. one `retrieve`. */
  use: (index: I) => Promise<unknown>;
  /** Number of cases. @default 1000 */
  cases?: number;
  /** Seed of the case generator. @default 1 */
  seed?: number;
  /** Called with each expected error (to inspect messages). */
  onRefused?: (error: unknown, file: string, mutation: string) => void;
  /** Which errors are fine. @default GragError.isInstance */
  expected?: (error: unknown) => boolean;
}

/** A case whose load or use threw an unexpected error. */
export interface IndexFuzzFailure {
  case: number;
  /** File damaged, relative to the index directory. */
  file: string;
  /** What was done to it. */
  mutation: string;
  error: unknown;
  /** `Name: message @ first stack frame`: cases with the same signature are one defect. */
  signature: string;
}

/** What {@link fuzzIndexLoad} found. */
export interface IndexFuzzReport {
  cases: number;
  /** Cases that loaded and were used without error. */
  loaded: number;
  /** Cases refused with an expected error. */
  refused: number;
  /** Of those, cases that loaded but whose use threw (damage that load validation let through). */
  refusedInUse: number;
  /** A few examples of those: file, mutation and message. */
  inUse: string[];
  failures: IndexFuzzFailure[];
  /** Distinct failure signatures (crash sites) with a count and one example. */
  defects: { signature: string; count: number; example: string }[];
  /** Cases per mutation kind. */
  mutations: Record<string, number>;
  files: string[];
  ms: number;
}

const OTHER_SHAPES = ['{}', '[]', 'null', '{"nodes": 5}', '"index"', '0', '{"chunks":{},"texts":null}'];
const ODD_VALUES: unknown[] = [null, 0, -1, 1.5, 1e9, -1e9, '', 'x', [], {}, true, [1, 2], { a: 1 }];

async function listFiles(dir: string, root = dir): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path, root)));
    else out.push(relative(root, path));
  }
  return out.sort();
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Every container (object or array) slot of `value`, as [parent, key] pairs. */
function slots(value: unknown, out: [Record<string, unknown> | unknown[], string | number][] = []) {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push([value, i]);
      slots(item, out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, item] of Object.entries(value)) {
      out.push([value as Record<string, unknown>, k]);
      slots(item, out);
    }
  }
  return out;
}

function signatureOf(error: unknown): string {
  if (!(error instanceof Error)) return `thrown ${typeof error}: ${String(error).slice(0, 80)}`;
  const message = error.message
    .replace(/\/[^\s:'"]+/g, '<path>')
    .replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/gi, 'N')
    .slice(0, 120);
  const frame = (error.stack ?? '')
    .split('\n')
    .slice(1)
    .find((line) => /packages\//.test(line) && !/index-fuzz/.test(line));
  const where = frame?.match(/packages\/[^\s)]+/)?.[0] ?? 'unknown';
  return `${error.name}: ${message} @ ${where}`;
}

/**
 * Damage one file per case, load and use the index; report every error that `expected` rejects.
 * The pristine files are held in memory and each case writes back only the file it damaged.
 */
export async function fuzzIndexLoad<I>(options: IndexFuzzOptions<I>): Promise<IndexFuzzReport> {
  const started = performance.now();
  const cases = options.cases ?? 1000;
  const expected = options.expected ?? GragError.isInstance;
  const rand = mulberry32(options.seed ?? 1);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;

  const work = await mkdtemp(join(tmpdir(), 'grag-index-fuzz-'));
  const dir = join(work, 'index');
  await cp(options.dir, dir, { recursive: true });
  const files = await listFiles(dir);
  const pristine = new Map<string, Uint8Array>();
  // Plain copies: a Buffer's slice() shares memory, and a case must never damage the pristine bytes.
  for (const file of files) pristine.set(file, new Uint8Array(await readFile(join(dir, file))));
  const json = new Map<string, unknown>();
  for (const file of files) {
    const parsed = parseJson(pristine.get(file)!);
    if (parsed !== undefined) json.set(file, parsed);
  }

  const report: IndexFuzzReport = {
    cases,
    loaded: 0,
    refused: 0,
    refusedInUse: 0,
    inUse: [],
    failures: [],
    defects: [],
    mutations: {},
    files,
    ms: 0,
  };

  const mutate = (file: string): { bytes: Uint8Array | null; mutation: string } => {
    const original = pristine.get(file)!;
    const parsed = json.get(file);
    const kinds =
      parsed === undefined
        ? ['flip', 'flip', 'truncate', 'delete', 'shape', 'extend']
        : ['flip', 'truncate', 'delete', 'shape', 'value', 'value', 'value', 'drop'];
    const kind = pick(kinds);
    switch (kind) {
      case 'flip': {
        const bytes = original.slice();
        const flips = 1 + int(8);
        for (let i = 0; i < flips && bytes.length > 0; i++) bytes[int(bytes.length)]! ^= 1 + int(255);
        return { bytes, mutation: `flip ${flips} bytes` };
      }
      case 'truncate': {
        const length = int(original.length);
        return { bytes: original.subarray(0, length), mutation: `truncate to ${length}` };
      }
      case 'extend': {
        const extra = 1 + int(64);
        const bytes = new Uint8Array(original.length + extra);
        bytes.set(original);
        for (let i = original.length; i < bytes.length; i++) bytes[i] = int(256);
        return { bytes, mutation: `extend by ${extra}` };
      }
      case 'delete':
        return { bytes: null, mutation: 'delete' };
      case 'shape': {
        const text = pick(OTHER_SHAPES);
        return { bytes: Buffer.from(text), mutation: `replace with ${text}` };
      }
      default: {
        // 'value' swaps one value deep in the JSON for one of another type; 'drop' removes one.
        const copy = structuredClone(parsed);
        const all = slots(copy);
        if (all.length === 0) return { bytes: Buffer.from('[]'), mutation: 'replace with []' };
        const [parent, key] = pick(all);
        let mutation: string;
        if (kind === 'drop') {
          if (Array.isArray(parent)) parent.splice(key as number, 1);
          else delete parent[key as string];
          mutation = `drop ${String(key)}`;
        } else {
          const value = pick(ODD_VALUES);
          (parent as Record<string | number, unknown>)[key] = structuredClone(value);
          mutation = `set ${String(key)} to ${JSON.stringify(value)}`;
        }
        return { bytes: Buffer.from(JSON.stringify(copy)), mutation };
      }
    }
  };

  try {
    for (let c = 0; c < cases; c++) {
      const file = pick(files);
      const path = join(dir, file);
      const { bytes, mutation } = mutate(file);
      const kind = mutation.split(' ')[0]!;
      report.mutations[kind] = (report.mutations[kind] ?? 0) + 1;
      if (bytes === null) await unlink(path);
      else await writeFile(path, bytes);
      let loaded = false;
      try {
        const index = await options.load(dir);
        loaded = true;
        await options.use(index);
        report.loaded++;
      } catch (error) {
        if (expected(error)) {
          report.refused++;
          if (loaded) {
            report.refusedInUse++;
            if (report.inUse.length < 5)
              report.inUse.push(`${file} ${mutation}: ${(error as Error).message}`);
          }
          if (options.onRefused) options.onRefused(error, file, mutation);
        } else report.failures.push({ case: c, file, mutation, error, signature: signatureOf(error) });
      } finally {
        await writeFile(path, pristine.get(file)!);
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }

  const bySignature = new Map<string, IndexFuzzFailure[]>();
  for (const failure of report.failures) {
    const list = bySignature.get(failure.signature) ?? [];
    list.push(failure);
    bySignature.set(failure.signature, list);
  }
  report.defects = [...bySignature].map(([signature, list]) => ({
    signature,
    count: list.length,
    example: `case ${list[0]!.case}: ${list[0]!.file} ${list[0]!.mutation}`,
  }));
  report.ms = performance.now() - started;
  return report;
}

/** A one-line-per-defect summary of a report, for an assertion message. */
export function formatIndexFuzzReport(report: IndexFuzzReport): string {
  const head = `${report.cases} cases in ${Math.round(report.ms)} ms: ${report.loaded} loaded, ${report.refused} refused (${report.refusedInUse} only when used), ${report.failures.length} unexpected errors (${report.defects.length} distinct)`;
  const inUse = report.inUse.map((line) => `  used: ${line.slice(0, 200)}`);
  return [
    head,
    ...inUse,
    ...report.defects.map((d) => `  ${d.count}× ${d.signature}\n     e.g. ${d.example}`),
  ].join('\n');
}
