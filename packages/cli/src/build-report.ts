/** What `grag index` prints about a build: usage in one line, an estimate as a table; and the price table it reads. */
import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, type MeterSnapshot, type PriceTable } from '@grag/core';

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
