/**
 * Leiden of @grag/heterograph against igraph's Leiden (C, through python3-igraph) and two Louvain
 * implementations, on the same seeded planted-partition graphs, in the same run.
 *
 *   npx tsx benchmarks/leiden.ts [--out benchmarks/results]
 *
 * Needs /usr/bin/python3 with igraph (Debian: apt-get install -y python3-igraph).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { csrFromEdges } from '@grag/core/graph';
import { leidenCsr, partitionQualityCsr, seededRandom } from '@grag/heterograph';
import { machine } from './lib.js';

// graphology and its Louvain are dependencies of @grag/heterograph (Louvain a dev one, for this
// comparison): resolve them from there.
const requireFromHeterograph = createRequire(
  new URL('../packages/heterograph/package.json', import.meta.url),
);
const { UndirectedGraph } = requireFromHeterograph('graphology') as {
  UndirectedGraph: new () => { addNode(key: string): void; addEdge(a: string, b: string): void };
};
const louvain = requireFromHeterograph('graphology-communities-louvain') as (
  graph: unknown,
  options: { getEdgeWeight: null; rng: () => number },
) => Record<string, number>;

interface Spec {
  name: string;
  n: number;
  groupSize: number;
  /** Expected edges per node inside its group and to other groups. */
  degreeIn: number;
  degreeOut: number;
}

const SPECS: Spec[] = [
  { name: 'pp-1k', n: 1_000, groupSize: 50, degreeIn: 12, degreeOut: 4 },
  { name: 'pp-10k', n: 10_000, groupSize: 100, degreeIn: 12, degreeOut: 4 },
  { name: 'pp-10k-mixed', n: 10_000, groupSize: 200, degreeIn: 8, degreeOut: 8 },
  { name: 'pp-100k', n: 100_000, groupSize: 100, degreeIn: 10, degreeOut: 4 },
];
const SEEDS = [1, 2, 3];

/** A planted-partition graph with fixed expected degrees: each node draws half its edges. */
function planted(spec: Spec, seed: number): [number, number][] {
  const rand = seededRandom(seed);
  const seen = new Set<number>();
  const edges: [number, number][] = [];
  const add = (a: number, b: number) => {
    if (a === b) return;
    const key = a < b ? a * spec.n + b : b * spec.n + a;
    if (seen.has(key)) return;
    seen.add(key);
    edges.push([a, b]);
  };
  const groups = Math.ceil(spec.n / spec.groupSize);
  for (let v = 0; v < spec.n; v++) {
    const g = Math.floor(v / spec.groupSize);
    const start = g * spec.groupSize;
    const size = Math.min(spec.groupSize, spec.n - start);
    for (let i = 0; i < spec.degreeIn / 2; i++) add(v, start + Math.floor(rand() * size));
    for (let i = 0; i < spec.degreeOut / 2; i++) {
      let other = Math.floor(rand() * spec.n);
      if (groups > 1) while (Math.floor(other / spec.groupSize) === g) other = Math.floor(rand() * spec.n);
      add(v, other);
    }
  }
  return edges;
}

interface Result {
  graph: string;
  nodes: number;
  edges: number;
  implementation: string;
  /** Mean modularity over seeds, recomputed by one function for every implementation. */
  modularity: number;
  minModularity: number;
  maxModularity: number;
  communities: number;
  minMs: number;
  medianMs: number;
  maxMs: number;
}

function summarize(
  spec: Spec,
  edges: number,
  implementation: string,
  runs: { ms: number; q: number; communities: number }[],
): Result {
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  const qs = runs.map((r) => r.q);
  return {
    graph: spec.name,
    nodes: spec.n,
    edges,
    implementation,
    modularity: qs.reduce((a, b) => a + b, 0) / qs.length,
    minModularity: Math.min(...qs),
    maxModularity: Math.max(...qs),
    communities: Math.round(runs.reduce((a, r) => a + r.communities, 0) / runs.length),
    minMs: ms[0]!,
    medianMs: ms[Math.floor(ms.length / 2)]!,
    maxMs: ms.at(-1)!,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', default: 'benchmarks/results' } } });
  const here = dirname(fileURLToPath(import.meta.url));
  const tmp = mkdtempSync(join(tmpdir(), 'grag-leiden-'));
  const results: Result[] = [];
  let igraphVersion = '';
  try {
    for (const spec of SPECS) {
      const edges = planted(spec, 7);
      process.stderr.write(`${spec.name}: ${spec.n} nodes, ${edges.length} edges\n`);
      const csr = csrFromEdges(spec.n, edges, { directed: false });
      const distinct = (m: ArrayLike<number>) => new Set(Array.from(m)).size;

      const ours = SEEDS.map((seed) => {
        const t = performance.now();
        const run = leidenCsr(csr, { seed });
        const ms = performance.now() - t;
        return { ms, q: partitionQualityCsr(csr, run.membership), communities: run.count };
      });
      results.push(summarize(spec, edges.length, '@grag/heterograph leiden', ours));

      const graph = new UndirectedGraph();
      for (let v = 0; v < spec.n; v++) graph.addNode(String(v));
      for (const [a, b] of edges) graph.addEdge(String(a), String(b));
      const louvainRuns = SEEDS.map((seed) => {
        const t = performance.now();
        const communities = louvain(graph, { getEdgeWeight: null, rng: seededRandom(seed) });
        const ms = performance.now() - t;
        const membership = csr.nodeIds.map((id) => communities[id]!);
        return { ms, q: partitionQualityCsr(csr, membership), communities: distinct(membership) };
      });
      results.push(summarize(spec, edges.length, 'graphology-communities-louvain', louvainRuns));

      const edgePath = join(tmp, `${spec.name}.txt`);
      writeFileSync(edgePath, edges.map(([a, b]) => `${a} ${b}`).join('\n'));
      const outPath = join(tmp, `${spec.name}.json`);
      execFileSync(
        '/usr/bin/python3',
        [join(here, 'leiden_igraph.py'), edgePath, String(spec.n), SEEDS.join(','), outPath],
        { stdio: ['ignore', 'inherit', 'inherit'] },
      );
      const py = JSON.parse(readFileSync(outPath, 'utf8')) as {
        igraph: string;
        python: string;
        runs: Record<'leiden' | 'multilevel', { ms: number; modularity: number; membership: number[] }[]>;
      };
      igraphVersion = `python-igraph ${py.igraph} (Python ${py.python})`;
      for (const [kind, label] of [
        ['leiden', 'igraph community_leiden'],
        ['multilevel', 'igraph community_multilevel (Louvain)'],
      ] as const) {
        const runs = py.runs[kind].map((r) => {
          const q = partitionQualityCsr(csr, r.membership);
          if (Math.abs(q - r.modularity) > 1e-9) {
            throw new Error(`modularity mismatch for ${label}: ours ${q}, igraph ${r.modularity}`);
          }
          return { ms: r.ms, q, communities: distinct(r.membership) };
        });
        results.push(summarize(spec, edges.length, label, runs));
      }
      for (const r of results.filter((x) => x.graph === spec.name)) {
        process.stderr.write(
          `  ${r.implementation}: Q ${r.modularity.toFixed(4)} ${r.medianMs.toFixed(0)} ms\n`,
        );
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const meta = {
    benchmark: 'leiden',
    date: new Date().toISOString(),
    machine: machine(),
    igraph: igraphVersion,
  };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(
    join(values.out, 'leiden.json'),
    `${JSON.stringify({ ...meta, seeds: SEEDS, specs: SPECS, results }, null, 2)}\n`,
  );
  const m = meta.machine;
  const f = (x: number, d = 4) => x.toFixed(d);
  const md = [
    '# Leiden community detection',
    '',
    `Run ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}; ${igraphVersion}.`,
    '',
    'Seeded planted-partition graphs (fixed expected degree: each node draws `degreeIn/2` edges inside its group',
    'and `degreeOut/2` to other groups, duplicates dropped). Each implementation runs once per seed',
    `(${SEEDS.join(', ')}) on the same graph; the modularity (γ = 1) of every partition is recomputed by`,
    "`partitionQualityCsr` (and checked against igraph's own value). Time: the community detection alone, on a",
    'prebuilt graph (our CSR, the graphology graph, the igraph graph). igraph: `community_leiden(objective_function=',
    "'modularity', n_iterations=2)`, the defaults NodeRAG's official code uses through leidenalg; ours: `leidenCsr`",
    'with its defaults (θ = 0.01, 2 iterations).',
    '',
    '| graph | nodes | edges | implementation | modularity (mean) | min | max | communities | median ms | min ms | max ms |',
    '|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.graph} | ${r.nodes} | ${r.edges} | ${r.implementation} | ${f(r.modularity)} | ${f(r.minModularity)} | ${f(r.maxModularity)} | ${r.communities} | ${f(r.medianMs, 1)} | ${f(r.minMs, 1)} | ${f(r.maxMs, 1)} |`,
    ),
    '',
    'Reproduce: `npx tsx benchmarks/leiden.ts` (needs `/usr/bin/python3` with python3-igraph).',
    '',
  ].join('\n');
  writeFileSync(join(values.out, 'leiden.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
