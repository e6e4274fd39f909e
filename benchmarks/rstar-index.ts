/**
 * @grag/rstar-index: dominance queries (SG-RAG Eq. 5) on the R*-tree against a linear scan and, in
 * 2-D, against rbush, on seeded uniform points; build time by bulk load and by inserts.
 *
 *   pnpm tsx benchmarks/rstar-index.ts [--sizes 10000,100000,1000000] [--dims 2,8] [--runs 7] [--out benchmarks/results]
 *
 * Each (dimensions, size) runs in a child process so the heaps do not mix. Points are uniform in
 * [-1, 1)^d (mulberry32). A dominance query asks for every point z >= q; its selectivity s is drawn
 * log-uniformly in [1e-4, 1e-2] and split over the dimensions with random weights
 * (q_i = 1 - 2 s^{w_i}, sum w_i = 1), so results range from ~0.01 % to ~1 % of the points. Every
 * result is checked against the scan: false negatives and false positives are counted. Query time:
 * the query set is run twice to warm up, then `runs` times, the methods taking turns; the table gives
 * the mean time per query of the fastest, median and slowest run. 2-D also times box searches (rbush's own query) and all
 * sizes time 10-nearest-neighbour queries against a scan. A node-capacity sweep at 100k points
 * backs the default of 16.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { mulberry32 } from '@grag/core/test';
import { RStarTree } from '@grag/rstar-index';
import { machine, runInChild } from './lib.js';

interface RBushBox {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  id: number;
}
interface RBushLike {
  load(items: RBushBox[]): RBushLike;
  insert(item: RBushBox): RBushLike;
  search(box: { minX: number; minY: number; maxX: number; maxY: number }): RBushBox[];
}
type RBushClass = new (maxEntries?: number) => RBushLike;

/** rbush is a devDependency of @grag/rstar-index; resolve it from there. */
async function loadRBush(): Promise<RBushClass> {
  const require = createRequire(new URL('../packages/rstar-index/package.json', import.meta.url));
  const module = (await import(pathToFileURL(require.resolve('rbush')).href)) as { default: RBushClass };
  return module.default;
}

interface BuildRow {
  dims: number;
  n: number;
  method: string;
  buildMs: number;
  height?: number;
  bytes?: number;
}

interface QueryRow {
  dims: number;
  n: number;
  query: 'dominance' | 'box' | 'knn10';
  method: string;
  minMs: number;
  medianMs: number;
  maxMs: number;
  meanHits: number;
  falseNegatives: number;
  falsePositives: number;
}

interface CapacityRow {
  dims: number;
  n: number;
  nodeCapacity: number;
  bulkMs: number;
  insertMs: number;
  bulkQueryMedianMs: number;
  insertQueryMedianMs: number;
}

interface Result {
  builds: BuildRow[];
  queries: QueryRow[];
  capacity: CapacityRow[];
}

const QUERIES = 100;

function points(n: number, d: number, seed: number): Float64Array {
  const rand = mulberry32(seed);
  const out = new Float64Array(n * d);
  for (let i = 0; i < out.length; i++) out[i] = rand() * 2 - 1;
  return out;
}

function dominanceQueries(d: number, seed: number): Float64Array[] {
  const rand = mulberry32(seed);
  return Array.from({ length: QUERIES }, () => {
    const s = 10 ** (-4 + 2 * rand());
    const w = Array.from({ length: d }, () => rand() + 0.1);
    const total = w.reduce((a, b) => a + b, 0);
    return Float64Array.from(w, (x) => 1 - 2 * s ** (x / total));
  });
}

function scanDominating(data: Float64Array, d: number, q: Float64Array): number[] {
  const out: number[] = [];
  const n = data.length / d;
  outer: for (let i = 0; i < n; i++) {
    const o = i * d;
    for (let j = 0; j < d; j++) if (data[o + j]! < q[j]!) continue outer;
    out.push(i);
  }
  return out;
}

function scanBox(data: Float64Array, d: number, lo: Float64Array, hi: Float64Array): number[] {
  const out: number[] = [];
  const n = data.length / d;
  outer: for (let i = 0; i < n; i++) {
    const o = i * d;
    for (let j = 0; j < d; j++) {
      const x = data[o + j]!;
      if (x < lo[j]! || x > hi[j]!) continue outer;
    }
    out.push(i);
  }
  return out;
}

/** k nearest by a bounded max-heap-free selection: keep the k best in a sorted small array. */
function scanKnn(data: Float64Array, d: number, p: Float64Array, k: number): number[] {
  const bestD: number[] = [];
  const bestI: number[] = [];
  const n = data.length / d;
  for (let i = 0; i < n; i++) {
    const o = i * d;
    let sum = 0;
    for (let j = 0; j < d; j++) {
      const t = data[o + j]! - p[j]!;
      sum += t * t;
    }
    if (bestD.length === k && sum >= bestD[k - 1]!) continue;
    let at = bestD.length;
    while (at > 0 && bestD[at - 1]! > sum) at--;
    bestD.splice(at, 0, sum);
    bestI.splice(at, 0, i);
    if (bestD.length > k) {
      bestD.pop();
      bestI.pop();
    }
  }
  return bestI;
}

function distance2(data: Float64Array, d: number, i: number, p: Float64Array): number {
  let sum = 0;
  for (let j = 0; j < d; j++) {
    const t = data[i * d + j]! - p[j]!;
    sum += t * t;
  }
  return sum;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

interface Timed {
  perQuery: number[];
  answers: number[][];
}

/**
 * Time several methods on one query set: two warm-up passes each, then `runs` rounds in which every
 * method runs the whole set once (the order rotates each round, so load on the machine is shared
 * fairly). Returns per-query ms of each timed pass and the last answers, by method.
 */
function timeInterleaved<Q>(
  queries: Q[],
  runs: number,
  methods: { name: string; run: (q: Q) => number[] }[],
): Map<string, Timed> {
  const out = new Map<string, Timed>();
  for (const m of methods) {
    m.run(queries[0]!);
    out.set(m.name, { perQuery: [], answers: queries.map(m.run) });
    queries.map(m.run);
  }
  for (let r = 0; r < runs; r++) {
    for (let i = 0; i < methods.length; i++) {
      const m = methods[(i + r) % methods.length]!;
      const t = performance.now();
      const answers = queries.map(m.run);
      const timed = out.get(m.name)!;
      timed.perQuery.push((performance.now() - t) / queries.length);
      timed.answers = answers;
    }
  }
  return out;
}

function compare(answers: number[][], truth: number[][]): { fn: number; fp: number; hits: number } {
  let fn = 0;
  let fp = 0;
  let hits = 0;
  answers.forEach((got, i) => {
    const want = new Set(truth[i]!);
    const have = new Set(got);
    hits += want.size;
    for (const id of want) if (!have.has(id)) fn++;
    for (const id of have) if (!want.has(id)) fp++;
  });
  return { fn, fp, hits: hits / answers.length };
}

function queryRow(
  base: Pick<QueryRow, 'dims' | 'n' | 'query' | 'method'>,
  perQuery: number[],
  answers: number[][],
  truth: number[][],
): QueryRow {
  const { fn, fp, hits } = compare(answers, truth);
  return {
    ...base,
    minMs: Math.min(...perQuery),
    medianMs: median(perQuery),
    maxMs: Math.max(...perQuery),
    meanHits: hits,
    falseNegatives: fn,
    falsePositives: fp,
  };
}

function buildBulk(
  data: Float64Array,
  d: number,
  nodeCapacity = 16,
  bulkLoad: 'vamsplit' | 'str' = 'vamsplit',
): RStarTree {
  const tree = new RStarTree({ dimensions: d, nodeCapacity, bulkLoad });
  for (let i = 0; i < data.length; i += d) tree.add(data.subarray(i, i + d));
  return tree.finish();
}

function buildByInserts(data: Float64Array, d: number, nodeCapacity = 16): RStarTree {
  const tree = new RStarTree({ dimensions: d, nodeCapacity }).finish();
  for (let i = 0; i < data.length; i += d) tree.insert(data.subarray(i, i + d));
  return tree;
}

async function runOne(d: number, n: number, runs: number, sweep: boolean): Promise<Result> {
  const data = points(n, d, 1000 + d);
  const queries = dominanceQueries(d, 2000 + d);
  const builds: BuildRow[] = [];
  const rows: QueryRow[] = [];
  const SCAN = 'linear scan';

  const trees: [string, RStarTree][] = [];
  for (const [method, build] of [
    ['R*-tree (VAMSplit bulk load)', (x: Float64Array, dims: number) => buildBulk(x, dims, 16, 'vamsplit')],
    ['R*-tree (STR bulk load)', (x: Float64Array, dims: number) => buildBulk(x, dims, 16, 'str')],
    ['R*-tree (one-by-one inserts)', buildByInserts],
  ] as const) {
    const t = performance.now();
    const tree = build(data, d);
    const buildMs = performance.now() - t;
    builds.push({ dims: d, n, method, buildMs, height: tree.height, bytes: tree.save().byteLength });
    trees.push([method, tree]);
  }
  const rbushes: [string, RBushLike][] = [];
  if (d === 2) {
    const RBush = await loadRBush();
    const rects: RBushBox[] = [];
    for (let i = 0; i < n; i++) {
      const x = data[2 * i]!;
      const y = data[2 * i + 1]!;
      rects.push({ minX: x, minY: y, maxX: x, maxY: y, id: i });
    }
    let t = performance.now();
    rbushes.push(['rbush (OMT bulk load)', new RBush(16).load(rects)]);
    builds.push({ dims: d, n, method: 'rbush (OMT bulk load)', buildMs: performance.now() - t });
    t = performance.now();
    const inserted = new RBush(16);
    for (const r of rects) inserted.insert(r);
    rbushes.push(['rbush (one-by-one inserts)', inserted]);
    builds.push({ dims: d, n, method: 'rbush (one-by-one inserts)', buildMs: performance.now() - t });
  }

  const report = (query: QueryRow['query'], timed: Map<string, Timed>, truth: number[][]) => {
    for (const [method, t] of timed)
      rows.push(queryRow({ dims: d, n, query, method }, t.perQuery, t.answers, truth));
  };

  // Dominance.
  const dominance = timeInterleaved(queries, runs, [
    { name: SCAN, run: (q: Float64Array) => scanDominating(data, d, q) },
    ...trees.map(([name, tree]) => ({ name, run: (q: Float64Array) => tree.dominating(q) })),
    ...rbushes.map(([name, rb]) => ({
      name,
      run: (q: Float64Array) =>
        rb.search({ minX: q[0]!, minY: q[1]!, maxX: Infinity, maxY: Infinity }).map((r) => r.id),
    })),
  ]);
  report('dominance', dominance, dominance.get(SCAN)!.answers);

  // Box search (2-D), rbush's own query.
  if (d === 2) {
    const boxes = Array.from({ length: QUERIES }, (_, i) => {
      const rand = mulberry32(3000 + i);
      const side = Math.sqrt(10 ** (-4 + 2 * rand())) * 2;
      const lo = Float64Array.from({ length: d }, () => -1 + rand() * (2 - side));
      return { lo, hi: lo.map((x) => x + side) };
    });
    type B = (typeof boxes)[number];
    const timed = timeInterleaved(boxes, runs, [
      { name: SCAN, run: (b: B) => scanBox(data, d, b.lo, b.hi) },
      ...trees.map(([name, tree]) => ({ name, run: (b: B) => tree.search(b.lo, b.hi) })),
      ...rbushes.map(([name, rb]) => ({
        name,
        run: (b: B) =>
          rb.search({ minX: b.lo[0]!, minY: b.lo[1]!, maxX: b.hi[0]!, maxY: b.hi[1]! }).map((r) => r.id),
      })),
    ]);
    report('box', timed, timed.get(SCAN)!.answers);
  }

  // 10 nearest neighbours of uniform points; compared by distance (ties may swap ids).
  const knnPoints = Array.from({ length: 30 }, (_, i) => {
    const rand = mulberry32(4000 + i);
    return Float64Array.from({ length: d }, () => rand() * 2 - 1);
  });
  const knn = timeInterleaved(knnPoints, runs, [
    { name: SCAN, run: (p: Float64Array) => scanKnn(data, d, p, 10) },
    ...trees.map(([name, tree]) => ({ name, run: (p: Float64Array) => tree.neighbors(p, 10) })),
  ]);
  const asDistances = (answers: number[][]) =>
    answers.map((ids, i) => ids.map((id) => distance2(data, d, id, knnPoints[i]!)));
  const want = asDistances(knn.get(SCAN)!.answers);
  for (const [method, t] of knn) {
    const row = queryRow({ dims: d, n, query: 'knn10', method }, t.perQuery, t.answers, t.answers);
    // Queries whose 10 distances differ from the scan's.
    row.falseNegatives = asDistances(t.answers).filter((g, i) => g.some((x, j) => x !== want[i]![j])).length;
    rows.push(row);
  }

  const capacity: CapacityRow[] = [];
  if (sweep) {
    const truth = dominance.get(SCAN)!.answers;
    const built: { M: number; bulk: RStarTree; dyn: RStarTree; bulkMs: number; insertMs: number }[] = [];
    for (const M of [8, 16, 32, 64]) {
      let t = performance.now();
      const bulk = buildBulk(data, d, M);
      const bulkMs = performance.now() - t;
      t = performance.now();
      const dyn = buildByInserts(data, d, M);
      built.push({ M, bulk, dyn, bulkMs, insertMs: performance.now() - t });
    }
    const timed = timeInterleaved(
      queries,
      runs,
      built.flatMap(({ M, bulk, dyn }) => [
        { name: `bulk ${M}`, run: (q: Float64Array) => bulk.dominating(q) },
        { name: `dyn ${M}`, run: (q: Float64Array) => dyn.dominating(q) },
      ]),
    );
    for (const { M, bulkMs, insertMs } of built) {
      const b = timed.get(`bulk ${M}`)!;
      const y = timed.get(`dyn ${M}`)!;
      const check = compare(b.answers, truth).fn + compare(y.answers, truth).fn;
      if (check !== 0) throw new Error(`capacity ${M}: ${check} false negatives`);
      capacity.push({
        dims: d,
        n,
        nodeCapacity: M,
        bulkMs,
        insertMs,
        bulkQueryMedianMs: median(b.perQuery),
        insertQueryMedianMs: median(y.perQuery),
      });
    }
  }
  return { builds, queries: rows, capacity };
}

const f = (x: number, digits = 3) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(digits));
const size = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);

const HEADER =
  '| d | n | method | ms/query min | median | max | speed-up vs scan (median) | mean hits | FN | FP |';
const SEPARATOR = '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|';

function markdown(
  meta: { date: string; machine: ReturnType<typeof machine>; loadAverage: { start: number; end: number } },
  result: Result,
  runs: number,
): string {
  const m = meta.machine;
  const lines = [
    '# @grag/rstar-index',
    '',
    `Run ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}.`,
    'Seeded uniform points in [-1, 1)^d; node capacity 16 for both trees. Query times are the mean per query over',
    `${QUERIES} queries (30 for kNN), as min / median / max over ${runs} timed runs after two warm-up runs; the methods`,
    'take turns within each run, so load on the machine falls on all of them alike.',
    'Dominance queries (SG-RAG Eq. 5: every z >= q) have selectivity log-uniform in 0.01 %–1 %; rbush answers',
    'them as a search of the box [q, +∞). FN / FP: false negatives / positives against the linear scan over all',
    'queries and runs checked (for kNN, FN counts queries whose 10 distances differ from the scan).',
    `The machine was shared with other jobs (1-minute load average ${meta.loadAverage.start.toFixed(1)} at the start,`,
    `${meta.loadAverage.end.toFixed(1)} at the end, on ${m.cores} cores): medians and maxima carry that noise, the min`,
    'column is the least disturbed.',
    '',
    '## Dominance queries',
    '',
    HEADER,
    SEPARATOR,
  ];
  const scanOf = (r: QueryRow) =>
    result.queries.find(
      (s) => s.dims === r.dims && s.n === r.n && s.query === r.query && s.method === 'linear scan',
    )!;
  for (const query of ['dominance', 'box', 'knn10'] as const) {
    if (query === 'box') lines.push('', '## Box intersection queries (2-D)', '', HEADER, SEPARATOR);
    if (query === 'knn10') lines.push('', '## 10 nearest neighbours', '', HEADER, SEPARATOR);
    for (const r of result.queries.filter((q) => q.query === query)) {
      const speedup = scanOf(r).medianMs / r.medianMs;
      lines.push(
        `| ${r.dims} | ${size(r.n)} | ${r.method} | ${f(r.minMs)} | ${f(r.medianMs)} | ${f(r.maxMs)} | ${r.method === 'linear scan' ? '1' : `${speedup.toFixed(1)}×`} | ${r.meanHits.toFixed(1)} | ${r.falseNegatives} | ${r.falsePositives} |`,
      );
    }
  }
  lines.push(
    '',
    '## Build',
    '',
    '| d | n | method | build ms | height | saved bytes |',
    '|---:|---:|---|---:|---:|---:|',
  );
  for (const b of result.builds) {
    lines.push(
      `| ${b.dims} | ${size(b.n)} | ${b.method} | ${f(b.buildMs, 1)} | ${b.height ?? '–'} | ${b.bytes?.toLocaleString('en-US') ?? '–'} |`,
    );
  }
  if (result.capacity.length > 0) {
    lines.push(
      '',
      '## Node capacity',
      '',
      '| d | n | M | bulk load ms | inserts ms | dominance ms/query (bulk) | (inserts) |',
      '|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const c of result.capacity) {
      lines.push(
        `| ${c.dims} | ${size(c.n)} | ${c.nodeCapacity} | ${f(c.bulkMs, 1)} | ${f(c.insertMs, 1)} | ${f(c.bulkQueryMedianMs)} | ${f(c.insertQueryMedianMs)} |`,
      );
    }
  }
  lines.push('', 'Reproduce: `pnpm tsx benchmarks/rstar-index.ts`.', '');
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '10000,100000,1000000' },
      dims: { type: 'string', default: '2,8' },
      runs: { type: 'string', default: '7' },
      out: { type: 'string', default: 'benchmarks/results' },
      single: { type: 'string' },
    },
  });
  const runs = Number(values.runs);
  if (values.single) {
    const [d, n, sweep] = values.single.split(':').map(Number);
    const result = await runOne(d!, n!, runs, sweep === 1);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const loadBefore = loadavg()[0]!;
  const sizes = values.sizes.split(',').map(Number);
  const result: Result = { builds: [], queries: [], capacity: [] };
  const self = fileURLToPath(import.meta.url);
  for (const d of values.dims.split(',').map(Number)) {
    for (const n of sizes) {
      const sweep = n === 100_000 ? 1 : 0;
      process.stderr.write(`running d=${d} n=${n}${sweep ? ' (with capacity sweep)' : ''} ...\n`);
      const one = runInChild<Result>(self, ['--single', `${d}:${n}:${sweep}`, '--runs', String(runs)]);
      result.builds.push(...one.builds);
      result.queries.push(...one.queries);
      result.capacity.push(...one.capacity);
      for (const r of one.queries.filter((q) => q.query === 'dominance'))
        process.stderr.write(`  ${r.method}: ${f(r.medianMs)} ms/query, FN ${r.falseNegatives}\n`);
    }
  }
  const meta = {
    benchmark: 'rstar-index',
    date: new Date().toISOString(),
    machine: machine(),
    loadAverage: { start: loadBefore, end: loadavg()[0]! },
    runs,
    queries: QUERIES,
  };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(join(values.out, 'rstar-index.json'), `${JSON.stringify({ ...meta, ...result }, null, 2)}\n`);
  const md = markdown(meta, result, runs);
  writeFileSync(join(values.out, 'rstar-index.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
