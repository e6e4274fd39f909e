/**
 * What `grag index` prints about a build: usage in one line, the task contracts it called in
 * another, an estimate as a table; and the price table it reads.
 */
import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, type MeterSnapshot, type MethodTasks, type TaskVersions } from '@grag/core';
import type { PriceTable } from '@grag/core/kit';

/** A build's usage in one line: time, model calls and tokens, texts embedded, cache hits, cost. */
export function formatUsage(snapshot: MeterSnapshot): string {
  const t = snapshot.total;
  const parts = [`${(t.wallMs / 1000).toFixed(1)} s`];
  if (t.chatCalls)
    parts.push(`${t.chatCalls} model calls, ${t.inputTokens} in / ${t.outputTokens} out tokens`);
  if (t.embedCalls) parts.push(`${t.embeddedValues} texts embedded`);
  if (t.cacheHits) parts.push(`${t.cacheHits} calls answered from the cache`);
  if (t.usd > 0) parts.push(`$${t.usd.toFixed(4)}`);
  return parts.join(', ');
}

/** Task names with their contract versions: `extractGraph v1, summarize v1`. */
export function formatTaskVersions(tasks: TaskVersions): string {
  return Object.entries(tasks)
    .map(([task, version]) => `${task} v${version}`)
    .join(', ');
}

/**
 * The task contracts a method calls, in one line: `build extractGraph v1, summarize v1; retrieve
 * extractQueryGraph v1`, a side that calls none left out; `none` when neither calls one, `not
 * declared` for a method that does not say.
 */
export function formatMethodTasks(tasks: MethodTasks | undefined): string {
  if (tasks === undefined) return 'not declared';
  const sides = (['build', 'retrieve'] as const)
    .filter((side) => Object.keys(tasks[side]).length > 0)
    .map((side) => `${side} ${formatTaskVersions(tasks[side])}`);
  return sides.length > 0 ? sides.join('; ') : 'none';
}

/**
 * The build report's line on tasks: `tasks of offline:wink: build extractGraph v1; retrieve
 * extractQueryGraph v1`, the build's side as its manifest recorded it (`recorded`) when it did;
 * `tasks: none` for a method that calls none.
 */
export function formatTasksLine(
  declared: MethodTasks | undefined,
  recorded: TaskVersions | undefined,
  suite: string | undefined,
): string {
  const tasks = declared && { build: recorded ?? declared.build, retrieve: declared.retrieve };
  const line = formatMethodTasks(tasks);
  return line === 'none' || line === 'not declared' || suite === undefined
    ? `tasks: ${line}`
    : `tasks of ${suite}: ${line}`;
}

/** Read a `--prices` file: `{ "<model>": { "input": usd, "output": usd } }` per 1M tokens. */
export async function readPrices(path: string | undefined): Promise<PriceTable | undefined> {
  if (path === undefined) return undefined;
  let table: unknown;
  try {
    table = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new InvalidArgumentError(
      'prices',
      `Cannot read the price table ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); pass a JSON file like {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}.`,
    );
  }
  const ok =
    typeof table === 'object' &&
    table !== null &&
    !Array.isArray(table) &&
    Object.values(table).every(
      (p) =>
        typeof p === 'object' &&
        p !== null &&
        Number.isFinite((p as { input?: unknown }).input) &&
        ((p as { output?: unknown }).output === undefined ||
          Number.isFinite((p as { output?: unknown }).output)),
    );
  if (!ok) {
    throw new InvalidArgumentError(
      'prices',
      `The price table ${path} must map model ids to {"input": usd, "output": usd} per 1M tokens, e.g. {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}.`,
    );
  }
  return table as PriceTable;
}

/** The estimate as a table: one row per stage, then the total. */
export function formatEstimate(snapshot: MeterSnapshot): string {
  const n = (v: number) => Math.round(v).toLocaleString('en-US');
  const header = ['stage', 'chat calls', 'input tok', 'output tok', 'embedded', 'embed tok', 'cached', 'USD'];
  const rows = Object.entries(snapshot.stages)
    .filter(([, u]) => u.chatCalls > 0 || u.embedCalls > 0 || u.cacheHits > 0)
    .map(([name, u]) => [
      name,
      n(u.chatCalls),
      n(u.inputTokens),
      n(u.outputTokens),
      n(u.embeddedValues),
      n(u.embedTokens),
      n(u.cacheHits),
      u.usd.toFixed(4),
    ]);
  const t = snapshot.total;
  rows.push([
    'total',
    n(t.chatCalls),
    n(t.inputTokens),
    n(t.outputTokens),
    n(t.embeddedValues),
    n(t.embedTokens),
    n(t.cacheHits),
    t.usd.toFixed(4),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** Inputs that were not read, counted: whole files and records of files, each by reason. */
export interface SkipCounts {
  files: number;
  records: number;
  /** Files by reason (see {@link reasonKind}), most frequent first. */
  filesByReason: Record<string, number>;
  /** Records by reason, most frequent first. */
  recordsByReason: Record<string, number>;
}

/**
 * The kind of a skip reason, for counting: the reason up to its details — a parenthesis, a colon,
 * a semicolon — with quoted names left out and numbers as `N` (`unsupported file type ".png"
 * (supported: …)` → `unsupported file type`, `duplicate id "a"` → `duplicate id`).
 */
export function reasonKind(reason: string): string {
  const head = reason.split(/ \(|: |; | — /)[0] ?? reason;
  return (
    head
      .replace(/"[^"]*"|'[^']*'|“[^”]*”/g, '')
      .replace(/\d+(\.\d+)?/g, 'N')
      .replace(/\s+/g, ' ')
      .replace(/[\s,.]+$/, '')
      .trim() || reason
  );
}

/** Count skipped inputs by kind and reason. */
export function countSkipped(skipped: readonly { reason: string; kind?: 'file' | 'record' }[]): SkipCounts {
  const files = new Map<string, number>();
  const records = new Map<string, number>();
  for (const s of skipped) {
    const into = s.kind === 'record' ? records : files;
    const kind = reasonKind(s.reason);
    into.set(kind, (into.get(kind) ?? 0) + 1);
  }
  const sorted = (m: Map<string, number>) =>
    Object.fromEntries([...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return {
    files: sum(files),
    records: sum(records),
    filesByReason: sorted(files),
    recordsByReason: sorted(records),
  };
}

/**
 * Skipped inputs in one line, e.g. `3 files skipped (empty file 2, damaged PDF 1) and 2 records
 * skipped (not valid JSON 2); each is named above`; `undefined` when nothing was skipped.
 */
export function formatSkipped(counts: SkipCounts): string | undefined {
  const part = (n: number, one: string, by: Record<string, number>) =>
    `${n} ${one}${n === 1 ? '' : 's'} skipped (${Object.entries(by)
      .map(([reason, count]) => `${reason} ${count}`)
      .join(', ')})`;
  const parts = [
    ...(counts.files ? [part(counts.files, 'file', counts.filesByReason)] : []),
    ...(counts.records ? [part(counts.records, 'record', counts.recordsByReason)] : []),
  ];
  return parts.length ? `${parts.join(' and ')}; each is named above` : undefined;
}

/** What an estimate read: files that gave documents, documents, tokens of their text, what was skipped. */
export interface EstimateInput {
  files: number;
  documents: number;
  /** Tokens of the documents' text, as the loaders extracted it (the build's tokenizer). */
  tokens: number;
  skipped: SkipCounts;
}

/** The estimate's input in one line: `input: 42,310 tokens of text in 12 documents from 5 files (2 files skipped)`. */
export function formatInput(input: EstimateInput): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const skipped = [
    ...(input.skipped.files ? [`${n(input.skipped.files)} file${input.skipped.files === 1 ? '' : 's'}`] : []),
    ...(input.skipped.records
      ? [`${n(input.skipped.records)} record${input.skipped.records === 1 ? '' : 's'}`]
      : []),
  ];
  return (
    `input: ${n(input.tokens)} tokens of text in ${n(input.documents)} documents from ${n(input.files)} files` +
    (skipped.length ? ` (${skipped.join(' and ')} skipped)` : '')
  );
}
