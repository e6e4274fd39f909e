/**
 * What the server's thread spends on one `POST /v1/query` response (no answer) answered by a
 * retrieval worker, before and after the worker serialised the response's retrieval itself:
 *
 * - before: the worker sends `JSON.stringify(retrieval)`; the server's thread parses it, shapes it
 *   (`retrievalJson`), serialises the whole response (`c.json`) and Node encodes it as UTF-8;
 * - after: the worker sends the UTF-8 bytes of `retrievalJson(retrieval)` (moved, not copied); the
 *   server's thread writes them between the envelope's bytes.
 *
 * Both paths run in this one process on the same retrievals (the slice's questions, at the default
 * 12k-token budget, BM25 and E2GraphRAG built offline), interleaved round by round, so the ratio
 * holds on a busy machine; the worker's side is timed too (the work moved there). Min / median /
 * max over rounds of microseconds per response. Writes benchmarks/results/server-main-thread.{json,md}.
 *
 *   pnpm tsx benchmarks/server-main-thread.ts [datasets-dir] [--dataset hotpotqa] [--rounds 15]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Method, Retrieval } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { e2GraphRag } from '@grag/e2graphrag';
import { bm25Rag } from '@grag/naive-rag';
import { createOfflineProviders } from '@grag/offline';
import { retrievalJson } from '../packages/server/src/query.js';
import { loadQaDataset, machine, percentile } from './lib.js';

const utf8 = new TextEncoder();

/** The server's thread before: parse the worker's JSON, shape it, serialise the response, encode it. */
function before(json: string): number {
  const retrieval = JSON.parse(json) as Retrieval;
  const response = { index: 'ix', version: 'v', method: 'm', retrieval: retrievalJson(retrieval), ms: 1.5 };
  return Buffer.byteLength(JSON.stringify(response));
}

/** The server's thread after: the envelope's bytes around the worker's. */
function after(bytes: Uint8Array): number {
  const head = utf8.encode(`{"index":"ix","version":"v","method":"m","retrieval":`);
  const tail = utf8.encode(`,"ms":1.5}`);
  const body = new Uint8Array(head.byteLength + bytes.byteLength + tail.byteLength);
  body.set(head, 0);
  body.set(bytes, head.byteLength);
  body.set(tail, head.byteLength + bytes.byteLength);
  return body.byteLength;
}

/** Microseconds per item of `items` for `fn` over one pass. */
function perItem<T>(items: readonly T[], fn: (item: T) => number): number {
  let sink = 0;
  const started = performance.now();
  for (const item of items) sink += fn(item);
  const us = ((performance.now() - started) * 1000) / items.length;
  if (sink < 0) throw new Error('unreachable');
  return us;
}

interface Row {
  method: string;
  responses: number;
  meanBytes: number;
  /** µs per response on the server's thread: before, after. */
  mainBefore: Stats;
  mainAfter: Stats;
  /** µs per response on the worker: before (stringify), after (shape, stringify, encode). */
  workerBefore: Stats;
  workerAfter: Stats;
}
type Stats = { min: number; median: number; max: number };

const stats = (values: number[]): Stats => ({
  min: Math.min(...values),
  median: percentile(values, 50),
  max: Math.max(...values),
});

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      dataset: { type: 'string', default: 'hotpotqa' },
      rounds: { type: 'string', default: '15' },
      out: { type: 'string', default: 'benchmarks/results' },
    },
  });
  const dataset = loadQaDataset(resolve(positionals[0] ?? '../shared/datasets'), values.dataset);
  const rounds = Number(values.rounds);
  const load = { start: loadavg()[0]!, end: 0 };
  const rows: Row[] = [];
  for (const method of [bm25Rag, e2GraphRag] as unknown as Method<unknown>[]) {
    process.stderr.write(`building ${method.name} on ${dataset.corpus.length} passages ...\n`);
    const index = await method.build(dataset.corpus, createBuildContext(createOfflineProviders()));
    const retrievals: Retrieval[] = [];
    for (const q of dataset.questions) retrievals.push(await method.retrieve(index, q.question));
    const jsons = retrievals.map((r) => JSON.stringify(r));
    const bytes = retrievals.map((r) => utf8.encode(JSON.stringify(retrievalJson(r))));
    const times = { mainBefore: [], mainAfter: [], workerBefore: [], workerAfter: [] } as Record<
      'mainBefore' | 'mainAfter' | 'workerBefore' | 'workerAfter',
      number[]
    >;
    for (let round = 0; round < rounds + 2; round++) {
      const sample = {
        mainBefore: perItem(jsons, before),
        mainAfter: perItem(bytes, after),
        workerBefore: perItem(retrievals, (r) => JSON.stringify(r).length),
        workerAfter: perItem(retrievals, (r) => utf8.encode(JSON.stringify(retrievalJson(r))).byteLength),
      };
      // The first two rounds warm the JIT up.
      if (round >= 2)
        for (const [key, us] of Object.entries(sample)) times[key as keyof typeof times].push(us);
    }
    rows.push({
      method: method.name,
      responses: retrievals.length,
      meanBytes: Math.round(bytes.reduce((sum, b) => sum + b.byteLength, 0) / bytes.length),
      mainBefore: stats(times.mainBefore),
      mainAfter: stats(times.mainAfter),
      workerBefore: stats(times.workerBefore),
      workerAfter: stats(times.workerAfter),
    });
  }
  load.end = loadavg()[0]!;
  const report = {
    benchmark: 'server-main-thread',
    date: new Date().toISOString(),
    machine: machine(),
    loadAverage: load,
    dataset: values.dataset,
    rounds,
    rows,
  };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(join(values.out, 'server-main-thread.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(values.out, 'server-main-thread.md'), render(report));
  process.stdout.write(render(report));
}

function render(report: {
  date: string;
  machine: ReturnType<typeof machine>;
  loadAverage: { start: number; end: number };
  dataset: string;
  rounds: number;
  rows: Row[];
}): string {
  const m = report.machine;
  const f = (s: Stats) => `${s.median.toFixed(0)} (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
  const lines = [
    "# The server's thread per worker-answered response",
    '',
    `Run ${report.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform};`,
    `1-minute load average ${report.loadAverage.start.toFixed(2)} at the start and ${report.loadAverage.end.toFixed(2)} at the end (other jobs shared the machine).`,
    '',
    `Each response is a \`POST /v1/query\` without an answer on the ${report.dataset} dev slice's questions at the default`,
    '12k-token budget (offline indexes). Microseconds per response, median (min–max) over',
    `${report.rounds} rounds of every question, both paths interleaved in one process. Before: the server's thread`,
    "parsed the worker's JSON, shaped it and serialised and encoded the whole response; after: it writes the",
    "worker's bytes inside the envelope. The worker's side: `JSON.stringify(retrieval)` before; shaping,",
    'serialising and encoding after.',
    '',
    "| method | responses | mean bytes | server's thread before µs | after µs | ratio | worker before µs | worker after µs |",
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...report.rows.map(
      (r) =>
        `| ${r.method} | ${r.responses} | ${r.meanBytes} | ${f(r.mainBefore)} | ${f(r.mainAfter)} | ${(r.mainBefore.median / r.mainAfter.median).toFixed(1)}x | ${f(r.workerBefore)} | ${f(r.workerAfter)} |`,
    ),
    '',
    `Reproduce: \`pnpm tsx benchmarks/server-main-thread.ts ../shared/datasets --dataset ${report.dataset} --rounds ${report.rounds}\` from the repository root.`,
    '',
  ];
  return lines.join('\n');
}

await main();
