/**
 * Retrieval quality of updated indexes (issue 18), through `runEval` with the providers `grag eval`
 * uses offline: for each method whose update approximates a build (e2graphrag, ket-rag, noderag)
 * and each slice, three configurations of one method are evaluated on the slice's questions:
 * **rebuild** (a build of the whole corpus: the `grag eval` number), **update** (a build of 90% of
 * the documents, a seeded shuffle picking the other 10%, then `update` adds them) and **update,
 * full** (the same with `full: true`). The update keeps its first build's embedder fit, as a real
 * update does.
 *
 *   nice -n 5 pnpm tsx benchmarks/update-quality.ts [datasets-dir] [--methods a,b] [--slices a,b]
 *        [--out benchmarks/results]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createProviders, METHODS, resolveConfig } from '@grag/cli';
import type { BuildContext, Document, Method } from '@grag/core';
import { loadDataset, runEval, seededRandom, shuffle } from '@grag/eval';
import { type EvalRow, evalTable, machine } from './lib.js';

const SEED = 1;
/** Share of the documents the update adds. */
const SHARE = 0.1;
const SLICES = ['musique', 'hotpotqa', '2wikimultihopqa'];
const ORDER = ['e2graphrag', 'ket-rag', 'noderag'];

// biome-ignore lint/suspicious/noExplicitAny: methods of every index type
type AnyMethod = Method<any, any, any>;

/**
 * `method` whose build indexes all but the seeded SHARE of the documents and then adds those with
 * `update` (`full` as given): what `runEval` builds is an updated index.
 */
function updatedBuild(method: AnyMethod, full: boolean): AnyMethod {
  const update = method.update?.bind(method);
  if (!update) throw new Error(`update-quality: ${method.name} has no update`);
  return Object.assign(Object.create(method) as AnyMethod, {
    async build(docs: Document[], ctx: BuildContext, options?: Record<string, unknown>) {
      const ids = shuffle(
        seededRandom(SEED),
        docs.map((d) => d.id),
      );
      const added = new Set(ids.slice(0, Math.round(docs.length * SHARE)));
      const base = await method.build(
        docs.filter((d) => !added.has(d.id)),
        ctx,
        options,
      );
      const { index } = await update(base, { add: docs.filter((d) => added.has(d.id)) }, ctx, { full });
      return index;
    },
  });
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      methods: { type: 'string' },
      slices: { type: 'string' },
      out: { type: 'string', default: 'benchmarks/results' },
    },
  });
  const root = positionals[0] ?? '../shared/datasets';
  const names = values.methods?.split(',') ?? ORDER;
  const slices = values.slices?.split(',') ?? SLICES;
  const config = await resolveConfig({ provider: 'offline' }, { env: {} });
  const rows: EvalRow[] = [];
  for (const slice of slices) {
    const dataset = loadDataset(join(root, slice));
    for (const name of names) {
      const entry = METHODS.find((m) => m.name === name);
      if (!entry) throw new Error(`update-quality: unknown method "${name}"`);
      const out = await mkdtemp(join(tmpdir(), 'grag-update-quality-'));
      process.stderr.write(`update-quality: ${name} on ${slice} ...\n`);
      try {
        const run = await runEval({
          dataset,
          methods: [
            { label: `${name} rebuild`, method: entry.method },
            { label: `${name} +10% update`, method: updatedBuild(entry.method, false) },
            { label: `${name} +10% update, full`, method: updatedBuild(entry.method, true) },
          ],
          context: () => createProviders(config).ctx,
          out,
          concurrency: 1,
          saveIndexes: false,
        });
        for (const m of run.methods) {
          rows.push({
            label: m.label,
            slice,
            command: `pnpm tsx benchmarks/update-quality.ts --methods ${name} --slices ${slice}`,
            questions: m.questions,
            metrics: m.metrics,
            contextTokens: m.contextTokens,
            indexSeconds: m.index.seconds,
            p50Ms: m.latencyMs.p50,
            p95Ms: m.latencyMs.p95,
            peakRssMiB: m.peakRssMiB,
          });
        }
      } finally {
        await rm(out, { recursive: true, force: true });
      }
    }
  }
  const intro = [
    '# Retrieval quality of updated indexes',
    '',
    `Each method through \`runEval\` with \`grag eval\`'s offline providers, on the dev slices. **rebuild**: a build of every document (what \`grag eval\` reports). **+10% update**: a build of 90% of the documents (a seeded shuffle, seed ${SEED}, picks the other 10%), then \`update\` adds them. **full**: the same update with \`full: true\` (\`grag add --full\`). An update keeps the embedder fit of its first build (offline TF-IDF fitted on 90% of the corpus), as a real update does; a rebuild fits on all of it. Index seconds are the build plus the update.`,
    '',
  ].join('\n');
  mkdirSync(values.out, { recursive: true });
  writeFileSync(
    join(values.out, 'update-quality.json'),
    `${JSON.stringify({ benchmark: 'update-quality', date: new Date().toISOString(), machine: machine(), rows }, null, 2)}\n`,
  );
  writeFileSync(join(values.out, 'update-quality.md'), `${intro}${evalTable(rows)}\n`);
}

await main();
