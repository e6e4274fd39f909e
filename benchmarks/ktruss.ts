/**
 * Truss decomposition: @grag/ktruss against networkx on the same seeded graphs, in one run.
 *
 *   pnpm tsx benchmarks/ktruss.ts [--sizes 10000,100000,1000000] [--runs 5] [--nx-timeout 180] [--out benchmarks/results]
 *
 * Two graph families with many triangles (a triangle-free graph would make every truss trivial):
 * - `ws`: Watts–Strogatz ring lattice, each node joined to its 10 nearest, 10 % of edges rewired;
 * - `hk`: Holme–Kim power-law graph with triad formation (5 edges per new node, triad step 0.5).
 * Each graph is written to a temporary edge list; networkx reads it in a python subprocess and its
 * trussness (chained `nx.k_truss`, see ktruss_networkx.py) is timed there. Both histograms of
 * trussness must agree. networkx runs under a time limit; once it hits it, larger graphs of that
 * family are not given to networkx (the table says so).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mulberry32 } from '@grag/core/test';
import { trussDecomposition, trussGraphFromEdges } from '@grag/ktruss';
import { machine } from './lib.js';

type Family = 'ws' | 'hk';

/** Edges as a flat array of pairs; `n` nodes. Duplicates and self-loops are never produced. */
interface Generated {
  n: number;
  edges: Uint32Array;
}

function pairKey(a: number, b: number, n: number): number {
  return a < b ? a * n + b : b * n + a;
}

/** Watts–Strogatz: ring of n nodes, each joined to its `half` clockwise neighbours, rewired with prob p. */
function wattsStrogatz(targetEdges: number, seed: number, half = 5, p = 0.1): Generated {
  const n = Math.max(2 * half + 2, Math.round(targetEdges / half));
  const rand = mulberry32(seed);
  const seen = new Set<number>();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 1; j <= half; j++) {
      let a = i;
      let b = (i + j) % n;
      if (rand() < p) {
        // rewire the far end to a uniform node, avoiding self-loops and duplicates
        for (let tries = 0; tries < 32; tries++) {
          const c = Math.floor(rand() * n);
          if (c !== a && !seen.has(pairKey(a, c, n))) {
            b = c;
            break;
          }
        }
      }
      if (a === b || seen.has(pairKey(a, b, n))) continue;
      seen.add(pairKey(a, b, n));
      if (rand() < 0.5) [a, b] = [b, a];
      out.push(a, b);
    }
  }
  return { n, edges: Uint32Array.from(out) };
}

/** Holme–Kim: preferential attachment with triad formation, `per` edges per new node. */
function holmeKim(targetEdges: number, seed: number, per = 5, triad = 0.5): Generated {
  const n = Math.max(per + 2, Math.round(targetEdges / per));
  const rand = mulberry32(seed);
  const adjacency: number[][] = Array.from({ length: n }, () => []);
  const repeated: number[] = []; // every endpoint of every edge: sampling it is preferential
  const seen = new Set<number>();
  const out: number[] = [];
  const add = (a: number, b: number): boolean => {
    if (a === b || seen.has(pairKey(a, b, n))) return false;
    seen.add(pairKey(a, b, n));
    adjacency[a]!.push(b);
    adjacency[b]!.push(a);
    repeated.push(a, b);
    out.push(a, b);
    return true;
  };
  for (let a = 0; a <= per; a++) for (let b = a + 1; b <= per; b++) add(a, b);
  for (let v = per + 1; v < n; v++) {
    let added = 0;
    let last = -1;
    for (let tries = 0; added < per && tries < 20 * per; tries++) {
      let target: number;
      if (last >= 0 && rand() < triad && adjacency[last]!.length > 0) {
        const nb = adjacency[last]!;
        target = nb[Math.floor(rand() * nb.length)]!;
      } else {
        target = repeated[Math.floor(rand() * repeated.length)]!;
      }
      if (add(v, target)) {
        added++;
        last = target;
      }
    }
  }
  return { n, edges: Uint32Array.from(out) };
}

interface Timing {
  min: number;
  median: number;
  max: number;
}

function stats(values: number[]): Timing {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0]!, median: sorted[Math.floor(sorted.length / 2)]!, max: sorted.at(-1)! };
}

interface Row {
  family: Family;
  nodes: number;
  edges: number;
  maxTrussness: number;
  /** CSR construction from the edge list (ms). */
  buildMs: Timing;
  /** Support counting + peeling (ms). */
  decomposeMs: Timing;
  /** networkx seconds, or null when skipped / stopped. */
  networkxSeconds: number | null;
  networkxNote: string;
  /** networkx seconds / our median decomposition seconds. */
  speedup: number | null;
  /** Trussness histograms equal. */
  agree: boolean | null;
  histogram: Record<string, number>;
}

function histogramOf(trussness: Uint32Array): Record<string, number> {
  const h = new Map<number, number>();
  for (const k of trussness) h.set(k, (h.get(k) ?? 0) + 1);
  return Object.fromEntries([...h.entries()].sort((a, b) => a[0] - b[0]).map(([k, c]) => [String(k), c]));
}

function runNetworkx(
  python: string,
  script: string,
  file: string,
  timeoutSeconds: number,
): { seconds: number; histogram: Record<string, number>; version: string } | { error: string } {
  try {
    const out = execFileSync(python, [script, file], {
      encoding: 'utf8',
      timeout: timeoutSeconds * 1000,
      killSignal: 'SIGKILL',
      maxBuffer: 1 << 24,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const parsed = JSON.parse(out.trim()) as {
      seconds: number;
      networkx: string;
      histogram: Record<string, number>;
    };
    return { seconds: parsed.seconds, histogram: parsed.histogram, version: parsed.networkx };
  } catch (error) {
    const e = error as { signal?: string; message: string };
    return {
      error: e.signal === 'SIGKILL' ? `stopped after ${timeoutSeconds} s` : e.message.split('\n')[0]!,
    };
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '10000,30000,100000,300000,1000000' },
      families: { type: 'string', default: 'ws,hk' },
      runs: { type: 'string', default: '5' },
      'nx-timeout': { type: 'string', default: '180' },
      python: { type: 'string', default: '/usr/bin/python3' },
      out: { type: 'string', default: 'benchmarks/results' },
    },
  });
  const sizes = values.sizes.split(',').map(Number);
  const runs = Number(values.runs);
  const nxTimeout = Number(values['nx-timeout']);
  const script = fileURLToPath(new URL('./ktruss_networkx.py', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'grag-ktruss-'));
  const rows: Row[] = [];
  let networkxVersion = 'unknown';
  try {
    for (const family of values.families.split(',') as Family[]) {
      let nxStopped = false;
      for (const [i, size] of sizes.entries()) {
        const seed = 1000 + i;
        const { n, edges } = family === 'ws' ? wattsStrogatz(size, seed) : holmeKim(size, seed);
        const m = edges.length / 2;
        process.stderr.write(`${family} n=${n} m=${m}: grag ...`);
        const build: number[] = [];
        const decompose: number[] = [];
        let trussness: Uint32Array = new Uint32Array(0);
        let maxTrussness = 0;
        const repeat = m >= 500_000 ? Math.min(runs, 3) : runs;
        // Warm-up runs (JIT) before the timed ones: more on small graphs, where one run is a few ms.
        const warmups = m < 100_000 ? 5 : 1;
        for (let r = 0; r < repeat + warmups; r++) {
          const t0 = performance.now();
          const g = trussGraphFromEdges(n, edges);
          const t1 = performance.now();
          const d = trussDecomposition(g);
          const t2 = performance.now();
          if (r < warmups) continue;
          build.push(t1 - t0);
          decompose.push(t2 - t1);
          trussness = d.trussness;
          maxTrussness = d.maxTrussness;
        }
        const histogram = histogramOf(trussness);
        const decomposeMs = stats(decompose);
        process.stderr.write(` ${decomposeMs.median.toFixed(1)} ms; networkx ...`);
        let networkxSeconds: number | null = null;
        let networkxNote = '';
        let agree: boolean | null = null;
        if (nxStopped) {
          networkxNote = `skipped (a smaller ${family} graph took over ${nxTimeout} s)`;
        } else {
          const file = join(dir, `${family}-${m}.txt`);
          const lines: string[] = [String(n)];
          for (let e = 0; e < m; e++) lines.push(`${edges[2 * e]} ${edges[2 * e + 1]}`);
          writeFileSync(file, `${lines.join('\n')}\n`);
          const result = runNetworkx(values.python, script, file, nxTimeout);
          rmSync(file);
          if ('error' in result) {
            networkxNote = result.error;
            nxStopped = true;
          } else {
            networkxSeconds = result.seconds;
            networkxVersion = result.version;
            agree = JSON.stringify(result.histogram) === JSON.stringify(histogram);
          }
        }
        process.stderr.write(
          ` ${networkxSeconds === null ? networkxNote : `${networkxSeconds.toFixed(2)} s`}\n`,
        );
        rows.push({
          family,
          nodes: n,
          edges: m,
          maxTrussness,
          buildMs: stats(build),
          decomposeMs,
          networkxSeconds,
          networkxNote,
          speedup: networkxSeconds === null ? null : (networkxSeconds * 1000) / decomposeMs.median,
          agree,
          histogram,
        });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const meta = {
    benchmark: 'ktruss',
    date: new Date().toISOString(),
    machine: machine(),
    networkx: networkxVersion,
    python: execFileSync(values.python, ['--version'], { encoding: 'utf8' }).trim(),
    runs,
    networkxTimeoutSeconds: nxTimeout,
  };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(join(values.out, 'ktruss.json'), `${JSON.stringify({ ...meta, rows }, null, 2)}\n`);
  const f = (x: number, d = 1) => x.toFixed(d);
  const mach = meta.machine;
  const md = [
    '# Truss decomposition: @grag/ktruss vs networkx',
    '',
    `Run ${meta.date.slice(0, 10)} on ${mach.cpu} (${mach.cores} cores, ${mach.memoryGiB} GiB), Node ${mach.node}, ${mach.platform}; ${meta.python}, networkx ${meta.networkx}.`,
    '',
    'Trussness of every edge. grag: `trussDecomposition` (support by oriented triangle listing, then',
    `bin-sorted peeling, Wang & Cheng 2012), min / median / max of ${runs} runs after warm-up runs (5 below 100k edges, else 1; 3 timed runs from 500k`,
    'edges); "build" is the CSR from the edge list, timed apart. networkx: no truss-decomposition routine, so',
    '`H = nx.k_truss(H, k)` chained for k = 3, 4, ... on an `nx.Graph` already built (one run; reading the file',
    `and building the graph not timed), in a python subprocess stopped after ${nxTimeout} s. "agree": both`,
    'trussness histograms are identical. Speed-up: networkx time / grag median decomposition time.',
    '',
    'Graphs (seeded): `ws` Watts–Strogatz ring lattice (10 nearest, 10 % rewired); `hk` Holme–Kim power-law',
    'graph with triad formation (5 edges per node, triad probability 0.5).',
    '',
    '| graph | nodes | edges | max k | grag build ms | grag decompose ms (min / median / max) | networkx s | speed-up | agree |',
    '|---|---:|---:|---:|---:|---:|---:|---:|:---:|',
    ...rows.map(
      (r) =>
        `| ${r.family} | ${r.nodes.toLocaleString('en-US')} | ${r.edges.toLocaleString('en-US')} | ${r.maxTrussness} | ${f(r.buildMs.median)} | ${f(r.decomposeMs.min)} / ${f(r.decomposeMs.median)} / ${f(r.decomposeMs.max)} | ${r.networkxSeconds === null ? r.networkxNote : f(r.networkxSeconds, 2)} | ${r.speedup === null ? '–' : `${f(r.speedup, 0)}×`} | ${r.agree === null ? '–' : r.agree ? 'yes' : 'NO'} |`,
    ),
    '',
    'Reproduce: `pnpm tsx benchmarks/ktruss.ts` (needs `/usr/bin/python3` with networkx: `apt-get install python3-networkx`).',
    '',
  ].join('\n');
  writeFileSync(join(values.out, 'ktruss.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
