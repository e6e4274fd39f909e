/**
 * Dominance embeddings of star subgraphs (@grag/dominance-gnn) on FB15k-237: violations found by
 * the verifier for every embedder (before and after the closure correction for the paper's GAT),
 * pruning power on stars and one-edge paths, training and embedding time.
 *
 *   npx tsx benchmarks/dominance-gnn.ts [datasets-dir] [--nodes 2000] [--out benchmarks/results]
 *
 * Graph: a seeded snowball (breadth-first) sample of FB15k-237 entities and the training triples among them,
 * undirected, parallel relations merged. Node label = the entity's Freebase type, taken from the
 * relations it is the head of (`/film/film/genre` → `film/film`; the most frequent one); an entity
 * that is never a head gets `~<property>` of the relation it is most often the tail of.
 * Each configuration runs in a child process so peak RSS is its own.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  createStarGraph,
  createTrainingFreeEmbedder,
  type DominanceEmbedder,
  degree,
  type PruningReport,
  pruningPower,
  type StarGraph,
  type TrainingReport,
  trainGatEmbedder,
  trainMonotoneEmbedder,
  verifyDominance,
} from '@grag/dominance-gnn';
import { machine, percentile, runInChild } from './lib.js';

interface Config {
  id: string;
  embedder: 'training-free' | 'monotone-gat' | 'gat';
  dimensions: number;
  graph: 'sample' | 'full';
}

const CONFIGS: Config[] = [
  { id: 'training-free-d2', embedder: 'training-free', dimensions: 2, graph: 'sample' },
  { id: 'training-free-d8', embedder: 'training-free', dimensions: 8, graph: 'sample' },
  { id: 'monotone-d2', embedder: 'monotone-gat', dimensions: 2, graph: 'sample' },
  { id: 'monotone-d8', embedder: 'monotone-gat', dimensions: 8, graph: 'sample' },
  { id: 'gat-d2', embedder: 'gat', dimensions: 2, graph: 'sample' },
  { id: 'gat-d8', embedder: 'gat', dimensions: 8, graph: 'sample' },
  { id: 'training-free-d2-full', embedder: 'training-free', dimensions: 2, graph: 'full' },
  { id: 'training-free-d8-full', embedder: 'training-free', dimensions: 8, graph: 'full' },
];

/** Training settings of the benchmark (kept small: tfjs runs on the pure-JS CPU backend here). */
const TRAIN = { epochs: 3, subStarsPerVertex: 4, negativesPerVertex: 4 };
const SEED = 2022;

interface GraphStats {
  nodes: number;
  edges: number;
  labels: number;
  isolated: number;
  meanDegree: number;
  medianDegree: number;
  maxDegree: number;
  degreeAtMost10: number;
}

interface Row {
  id: string;
  embedder: string;
  dimensions: number;
  graph: GraphStats & { name: string };
  training?: TrainingReport;
  trainSeconds: number;
  /** Data side: every node's star embedded (closure included for the GAT). */
  embedGraphSeconds: number;
  /** Query side: microseconds per `embed` call on the graph's stars. */
  embedMicros: number;
  raw?: VerifySummary;
  verify: VerifySummary;
  correction: { method: string; lifted: number; saturated: number; maxLift: number };
  pruning: PruningReport;
  rawPruning?: PruningReport;
  peakRssMiB: number;
}

interface VerifySummary {
  stars: number;
  exhaustiveStars: number;
  sampledStars: number;
  pairs: number;
  violations: number;
  violatingStars: number;
  worstMargin: number;
  seconds: number;
}

/** FB15k-237 as a labelled star graph (see the header for the labelling). */
function loadFb15k(root: string, sampleNodes: number | undefined): StarGraph {
  const dir = join(root, 'fb15k237');
  const triples = readFileSync(join(dir, 'train.tsv'), 'utf8')
    .split(/\r?\n/)
    .filter((l) => l !== '')
    .map((l) => l.split('\t') as [string, string, string]);
  const headTypes = new Map<string, Map<string, number>>();
  const tailProps = new Map<string, Map<string, number>>();
  const bump = (m: Map<string, Map<string, number>>, k: string, v: string) => {
    const c = m.get(k) ?? new Map<string, number>();
    m.set(k, c);
    c.set(v, (c.get(v) ?? 0) + 1);
  };
  for (const [h, r, t] of triples) {
    const parts = r.split('/');
    bump(headTypes, h, `${parts[1]}/${parts[2]}`);
    bump(tailProps, t, `~${parts.at(-1)}`);
  }
  const top = (c: Map<string, number>) => [...c].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
  const entities = [...new Set(triples.flatMap(([h, , t]) => [h, t]))].sort();
  let chosen = entities;
  if (sampleNodes !== undefined && sampleNodes < entities.length) {
    // Snowball sample: breadth-first from a seeded random entity, neighbours in seeded random
    // order, restarting from a new random entity when a component is exhausted.
    let state = SEED >>> 0;
    const rand = () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let x = state;
      x = Math.imul(x ^ (x >>> 15), x | 1);
      x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
    };
    const adjacency = new Map<string, string[]>();
    for (const [h, , t] of triples) {
      if (h === t) continue;
      adjacency.set(h, [...(adjacency.get(h) ?? []), t]);
      adjacency.set(t, [...(adjacency.get(t) ?? []), h]);
    }
    const picked = new Set<string>();
    const queue: string[] = [];
    while (picked.size < sampleNodes) {
      if (queue.length === 0) {
        const start = entities[Math.floor(rand() * entities.length)]!;
        if (picked.has(start)) continue;
        picked.add(start);
        queue.push(start);
      }
      const next = queue.shift()!;
      const around = [...new Set(adjacency.get(next) ?? [])];
      for (let i = around.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [around[i], around[j]] = [around[j]!, around[i]!];
      }
      for (const n of around) {
        if (picked.size >= sampleNodes) break;
        if (!picked.has(n)) {
          picked.add(n);
          queue.push(n);
        }
      }
    }
    chosen = [...picked].sort();
  }
  const keep = new Set(chosen);
  const labels = new Map<string, string>();
  for (const e of chosen) labels.set(e, headTypes.has(e) ? top(headTypes.get(e)!) : top(tailProps.get(e)!));
  const edges = triples.filter(([h, , t]) => keep.has(h) && keep.has(t)).map(([h, , t]) => [h, t] as const);
  return createStarGraph(labels, edges);
}

function stats(graph: StarGraph): GraphStats {
  const degrees = graph.ids.map((_, i) => degree(graph, i));
  return {
    nodes: graph.ids.length,
    edges: graph.neighbours.length / 2,
    labels: new Set(graph.labels).size,
    isolated: degrees.filter((d) => d === 0).length,
    meanDegree: degrees.reduce((a, b) => a + b, 0) / degrees.length,
    medianDegree: percentile(degrees, 50),
    maxDegree: Math.max(...degrees),
    degreeAtMost10: degrees.filter((d) => d >= 1 && d <= 10).length,
  };
}

function verifySummary(
  embedder: DominanceEmbedder,
  graph: StarGraph,
  correction: 'closure' | 'none',
  embeddings = embedder.embedGraph(graph, { correction }),
): VerifySummary {
  const t = performance.now();
  const r = verifyDominance(embedder, graph, { embeddings, seed: SEED });
  return {
    stars: r.stars,
    exhaustiveStars: r.exhaustiveStars,
    sampledStars: r.sampledStars,
    pairs: r.pairs,
    violations: r.violations,
    violatingStars: r.violatingStars,
    worstMargin: r.worstMargin,
    seconds: (performance.now() - t) / 1000,
  };
}

async function runOne(root: string, config: Config, sampleNodes: number): Promise<Row> {
  const graph = loadFb15k(root, config.graph === 'sample' ? sampleNodes : undefined);
  const t0 = performance.now();
  let embedder: DominanceEmbedder;
  let training: TrainingReport | undefined;
  if (config.embedder === 'training-free') {
    embedder = createTrainingFreeEmbedder({ dimensions: config.dimensions, seed: SEED });
  } else if (config.embedder === 'monotone-gat') {
    const r = await trainMonotoneEmbedder(graph, {
      dimensions: config.dimensions,
      seed: SEED,
      epochs: TRAIN.epochs,
      negativesPerVertex: TRAIN.negativesPerVertex,
      onEpoch: (e) =>
        process.stderr.write(`    epoch ${e.epoch}: loss ${e.loss.toFixed(5)}, not pruned ${e.failures}\n`),
    });
    embedder = r.embedder;
    training = r.report;
  } else {
    const r = await trainGatEmbedder(graph, {
      dimensions: config.dimensions,
      seed: SEED,
      epochs: TRAIN.epochs,
      subStarsPerVertex: TRAIN.subStarsPerVertex,
      onEpoch: (e) =>
        process.stderr.write(
          `    epoch ${e.epoch}: loss ${e.loss.toFixed(5)}, violating pairs ${e.failures}\n`,
        ),
    });
    embedder = r.embedder;
    training = r.report;
  }
  const trainSeconds = (performance.now() - t0) / 1000;
  // Query side: embed every star once.
  const t1 = performance.now();
  let calls = 0;
  for (let i = 0; i < graph.ids.length; i++) {
    const start = graph.offsets[i]!;
    const neighbours: string[] = [];
    for (let e = start; e < graph.offsets[i + 1]!; e++) neighbours.push(graph.labels[graph.neighbours[e]!]!);
    embedder.embed(graph.labels[i]!, neighbours);
    calls++;
  }
  const embedMicros = ((performance.now() - t1) * 1000) / calls;
  const t2 = performance.now();
  const data = embedder.embedGraph(graph);
  const embedGraphSeconds = (performance.now() - t2) / 1000;
  const row: Row = {
    id: config.id,
    embedder: config.embedder,
    dimensions: config.dimensions,
    graph: {
      name: config.graph === 'sample' ? `fb15k237-sample-${sampleNodes}` : 'fb15k237',
      ...stats(graph),
    },
    ...(training ? { training } : {}),
    trainSeconds,
    embedGraphSeconds,
    embedMicros,
    verify: verifySummary(embedder, graph, 'closure', data),
    correction: data.correction,
    pruning: pruningPower(embedder, graph, { embeddings: data, seed: SEED }),
    peakRssMiB: 0,
  };
  if (!embedder.monotone) {
    const raw = embedder.embedGraph(graph, { correction: 'none' });
    row.raw = verifySummary(embedder, graph, 'none', raw);
    row.rawPruning = pruningPower(embedder, graph, { embeddings: raw, seed: SEED });
  }
  row.peakRssMiB = process.resourceUsage().maxRSS / 1024;
  return row;
}

const pct = (x: number) => (Number.isNaN(x) ? '–' : `${(100 * x).toFixed(1)}%`);

function table(rows: Row[]): string {
  const lines = [
    '| graph | embedder | d | train s | epochs | embedGraph s | µs / embed | stars (sampled) | pairs checked | violations raw | violations served | worst raw margin | lifted / saturated | star power | same-label star power | path power | false negatives | peak RSS MiB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const raw = r.raw ?? r.verify;
    const fn = r.pruning.stars.falseNegatives + r.pruning.paths.falseNegatives;
    const rawFn = r.rawPruning
      ? r.rawPruning.stars.falseNegatives + r.rawPruning.paths.falseNegatives
      : undefined;
    const power = (now: number, before?: number) =>
      before === undefined ? pct(now) : `${pct(now)} (raw ${pct(before)})`;
    lines.push(
      [
        '',
        r.graph.name,
        r.embedder,
        r.dimensions,
        r.trainSeconds.toFixed(1),
        r.training ? r.training.epochs : '–',
        r.embedGraphSeconds.toFixed(2),
        r.embedMicros.toFixed(1),
        `${r.verify.stars} (${r.verify.sampledStars})`,
        r.verify.pairs,
        r.raw ? `${raw.violations} in ${raw.violatingStars} stars` : '0 (by construction)',
        r.verify.violations,
        raw.worstMargin.toFixed(4),
        r.correction.method === 'closure' ? `${r.correction.lifted} / ${r.correction.saturated}` : '–',
        power(r.pruning.stars.power, r.rawPruning?.stars.power),
        power(r.pruning.stars.sameLabel.power, r.rawPruning?.stars.sameLabel.power),
        power(r.pruning.paths.power, r.rawPruning?.paths.power),
        rawFn === undefined ? fn : `${fn} (raw ${rawFn})`,
        Math.round(r.peakRssMiB),
        '',
      ]
        .join(' | ')
        .trim(),
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      out: { type: 'string', default: 'benchmarks/results' },
      nodes: { type: 'string', default: '2000' },
      single: { type: 'string' },
      configs: { type: 'string' },
    },
  });
  const root = resolve(positionals[0] ?? '../shared/datasets');
  const sampleNodes = Number(values.nodes);
  if (values.single) {
    const config = CONFIGS.find((c) => c.id === values.single);
    if (!config) throw new Error(`unknown configuration ${values.single}`);
    process.stdout.write(`${JSON.stringify(await runOne(root, config, sampleNodes))}\n`);
    return;
  }
  const configs = values.configs ? CONFIGS.filter((c) => values.configs!.split(',').includes(c.id)) : CONFIGS;
  const self = fileURLToPath(import.meta.url);
  const rows: Row[] = [];
  for (const config of configs) {
    process.stderr.write(`running ${config.id} ...\n`);
    const row = runInChild<Row>(self, [root, '--single', config.id, '--nodes', String(sampleNodes)]);
    rows.push(row);
    process.stderr.write(
      `  violations ${row.verify.violations}${row.raw ? ` (raw ${row.raw.violations})` : ''}, star power ${pct(row.pruning.stars.power)}, path power ${pct(row.pruning.paths.power)}\n`,
    );
  }
  const meta = {
    benchmark: 'dominance-gnn',
    date: new Date().toISOString(),
    machine: machine(),
    datasetsRoot: 'shared/datasets',
    settings: {
      sampleNodes,
      seed: SEED,
      ...TRAIN,
      verifyExhaustiveLimit: 1024,
      verifySamples: 256,
      closureLimit: 1024,
      pruningQueries: 200,
      pathQueries: 200,
      maxQueryDegree: 3,
    },
  };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(join(values.out, 'dominance-gnn.json'), `${JSON.stringify({ ...meta, rows }, null, 2)}\n`);
  const m = meta.machine;
  const g = rows.map((r) => r.graph).filter((x, i, all) => all.findIndex((y) => y.name === x.name) === i);
  const md = [
    '# Dominance embeddings (@grag/dominance-gnn) on FB15k-237',
    '',
    `Run ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}; tfjs backend: ${rows.find((r) => r.training)?.training?.backend ?? '–'}.`,
    '',
    'Graphs (undirected, relations merged; label = Freebase type of the entity, from the relations it heads):',
    '',
    '| graph | nodes | edges | labels | isolated | mean degree | median | max | degree 1-10 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...g.map(
      (x) =>
        `| ${x.name} | ${x.nodes} | ${x.edges} | ${x.labels} | ${x.isolated} | ${x.meanDegree.toFixed(1)} | ${x.medianDegree} | ${x.maxDegree} | ${x.degreeAtMost10} |`,
    ),
    '',
    `Training (trained embedders): ${TRAIN.epochs} epochs, batch 32, Adam; paper GAT lr 1e-3 on ${TRAIN.subStarsPerVertex} sub-stars per vertex of degree ≤ 10; monotone lr 1e-2 on ${TRAIN.negativesPerVertex} negatives per such vertex.`,
    'Verifier: every sub-star of a star with ≤ 1024 distinct sub-stars (neighbour-label multisets), 256 random ones above ("sampled").',
    '"violations raw": the model output as is (the paper); "served": what `embedGraph` returns by default (closure correction for the GAT: each node gets the component-wise max over its sub-stars; nodes with > 1024 sub-stars are saturated to 1, never pruned).',
    "Pruning power: share of non-matching candidates rejected by o(query) ≤ o(data), for 200 query stars (a random node with 1-3 of its neighbours) against every node, the same restricted to nodes of the query's label, and 200 one-edge query paths against every edge with the same label pair. False negatives: true matches rejected (stars + paths).",
    '',
    table(rows),
    '',
    'Reproduce: `npx tsx benchmarks/dominance-gnn.ts ../shared/datasets` (from the repository root).',
    '',
  ].join('\n');
  writeFileSync(join(values.out, 'dominance-gnn.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
