/** The tables, growth fits and plot of the scale benchmark (benchmarks/scale.ts). */
import type { GitState, MachineInfo } from '@grag/eval';

/** One generated corpus. */
export interface SizeInfo {
  label: string;
  targetTokens: number;
  tokens: number;
  documents: number;
  questions: number;
  bytes: number;
  sha256: string;
  corpus: string;
  questionsFile: string;
}

/** One (method, size). `status` is `ok`, or why there are no numbers. */
export interface Cell {
  method: string;
  size: string;
  tokens: number;
  status: string;
  detail?: string;
  /** 1-minute load average when the build started. */
  loadAverage: number;
  /** Highest RSS seen by the watchdog of a killed or failed build, MiB. */
  peakSeenMiB?: number;
  build?: {
    seconds: number;
    maxRssMiB: number;
    params: Record<string, unknown>;
    stats: Record<string, unknown>;
    /** The manifest's providers: embedder, tasks, vector index. */
    providers?: Record<string, unknown>;
  };
  indexBytes?: number;
  query?: {
    loadSeconds: number;
    /** The first retrieval after the load, ms (absent in runs before 2026-12-06). */
    firstMs?: number;
    p50Ms: number;
    p95Ms: number;
    hitRate: number;
    /** Questions timed: all of them, or fewer once retrieval had taken 2 minutes (at least 20). */
    questionsTimed: number;
    queryRssMiB: number;
  };
}

export interface ScaleReport {
  benchmark: 'scale';
  date: string;
  machine: MachineInfo;
  git: GitState;
  loadAverage: { start: number; end: number };
  seed: number;
  generatorVersion: number;
  timeoutMin: number;
  command: string;
  /** Method options the run built with (`--set <method>:<key>=<value>`), when any. */
  sets?: string[];
  /** `--vector-precision` of the builds, when given. */
  vectorPrecision?: string;
  /** When the run ended (ISO time); `date` is when it started. */
  finished?: string;
  sizes: SizeInfo[];
  cells: Cell[];
}

/** Targets of issue 29. */
const P95_MS = 50;
const PASSAGES = 4000;
const BUILD_1M_S = 180;
const RSS_MB = 2048;
const BYTES_RATIO = 3;
const LOAD_S = 2;

/** Least-squares slope of log(y) against log(x); undefined below two points. */
export function growthExponent(points: readonly { x: number; y: number }[]): number | undefined {
  const p = points.filter((q) => q.x > 0 && q.y > 0);
  if (p.length < 2) return undefined;
  const xs = p.map((q) => Math.log(q.x));
  const ys = p.map((q) => Math.log(q.y));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return num / den;
}

/** Passages of a build: its chunks (noderag: text units), else undefined (sg-rag keeps facts). */
export function passagesOf(cell: Cell): number | undefined {
  const s = cell.build?.stats as { chunks?: number; build?: { chunks?: number } } | undefined;
  return s?.chunks ?? s?.build?.chunks;
}

const SIZE_LABEL: Record<string, string> = { '100k': '100k', '1m': '1M', '10m': '10M' };
const f1 = (v: number | undefined) => (v === undefined ? '–' : v.toFixed(1));
const f2 = (v: number | undefined) => (v === undefined ? '–' : v.toFixed(2));
const mb = (bytes: number | undefined) => (bytes === undefined ? '–' : (bytes / 2 ** 20).toFixed(1));

function denseBytes(report: ScaleReport, size: string): number | undefined {
  return report.cells.find((c) => c.method === 'naive-dense' && c.size === size)?.indexBytes;
}

/** The error line of a failed child, without the exit code, the debug hint and the stack. */
function shortDetail(detail: string): string {
  const m = /grag: (?:unexpected error: )?(.*?)(?: \(set GRAG_DEBUG.*)?(?: \/ .*)?$/.exec(detail);
  return (m?.[1] ?? detail).slice(0, 160);
}

function questionsAt(report: ScaleReport, size: string): number {
  return report.sizes.find((s) => s.label === size)?.questions ?? 0;
}

function mainTable(report: ScaleReport): string[] {
  const lines = [
    '| method | size | tokens | passages | build s | peak RSS MB | index MB | × naive-dense | load s | first query ms | query RSS MB | p50 ms | p95 ms | hit | note |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  const methods = [...new Set(report.cells.map((c) => c.method))];
  for (const m of methods) {
    for (const c of report.cells.filter((x) => x.method === m)) {
      const dense = denseBytes(report, c.size);
      const ratio = c.indexBytes !== undefined && dense ? (c.indexBytes / dense).toFixed(2) : '–';
      const note =
        c.status === 'ok'
          ? ''
          : `${c.status}${c.peakSeenMiB ? ` (RSS reached ${c.peakSeenMiB} MB)` : ''}${c.detail && c.status === 'failed' ? `: ${shortDetail(c.detail)}` : ''}`;
      lines.push(
        `| ${[
          m,
          SIZE_LABEL[c.size] ?? c.size,
          c.tokens.toLocaleString('en-US'),
          passagesOf(c)?.toLocaleString('en-US') ?? '–',
          f1(c.build?.seconds),
          c.build ? Math.round(c.build.maxRssMiB).toString() : '–',
          mb(c.indexBytes),
          ratio,
          f2(c.query?.loadSeconds),
          c.query?.firstMs === undefined ? '–' : Math.round(c.query.firstMs).toString(),
          c.query ? Math.round(c.query.queryRssMiB).toString() : '–',
          f1(c.query?.p50Ms),
          f1(c.query?.p95Ms),
          c.query
            ? `${Math.round(100 * c.query.hitRate)} %${c.query.questionsTimed < questionsAt(report, c.size) ? ` (${c.query.questionsTimed} q)` : ''}`
            : '–',
          note,
        ].join(' | ')} |`,
      );
    }
  }
  return lines;
}

function growthTable(report: ScaleReport): string[] {
  const lines = [
    '| method | sizes | build time | peak RSS | index bytes | p95 retrieval |',
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const m of [...new Set(report.cells.map((c) => c.method))]) {
    const ok = report.cells.filter((c) => c.method === m && c.status === 'ok');
    const fit = (y: (c: Cell) => number | undefined) =>
      f2(growthExponent(ok.map((c) => ({ x: c.tokens, y: y(c) ?? 0 }))));
    lines.push(
      `| ${m} | ${ok.map((c) => SIZE_LABEL[c.size]).join(', ') || '–'} | ${fit((c) => c.build?.seconds)} | ${fit((c) => c.build?.maxRssMiB)} | ${fit((c) => c.indexBytes)} | ${fit((c) => c.query?.p95Ms)} |`,
    );
  }
  return lines;
}

/** Per method, each target of issue 29: holds (yes), is missed (no, with the number), or unmeasured (–). */
export function targetRows(report: ScaleReport): string[] {
  const lines = [
    `| method | p95 ≤ ${P95_MS} ms at ≥ ${PASSAGES.toLocaleString('en-US')} passages | 1M built ≤ 3 min | 1M peak RSS ≤ 2 GB | index ≤ ${BYTES_RATIO}× naive-dense (every size) | load ≤ ${LOAD_S} s at ≥ ${PASSAGES.toLocaleString('en-US')} passages | load + first query ≤ ${LOAD_S} s at ≥ ${PASSAGES.toLocaleString('en-US')} passages |`,
    '|---|---|---|---|---|---|---|',
  ];
  const yn = (ok: boolean, shown: string) => `${ok ? 'yes' : '**no**'} (${shown})`;
  for (const m of [...new Set(report.cells.map((c) => c.method))]) {
    const cells = report.cells.filter((c) => c.method === m);
    const at1m = cells.find((c) => c.size === '1m');
    // The passages of the corpus at a size: naive-dense's chunks (the same corpus for every method).
    const passagesAt = (size: string) => {
      const dense = report.cells.find((c) => c.method === 'naive-dense' && c.size === size);
      return dense ? passagesOf(dense) : undefined;
    };
    // The target size: the smallest corpus of at least PASSAGES passages; larger ones are shown after it.
    const sizes = report.sizes.map((s) => s.label).filter((s) => (passagesAt(s) ?? 0) >= PASSAGES);
    const at = cells.find((c) => c.size === sizes[0]);
    const p95 = at?.query?.p95Ms;
    const load = at?.query?.loadSeconds;
    const first = at?.query?.firstMs;
    // Load and first answer, as "load + first query"; unmeasured in runs before the first query was timed.
    const ready = (c: Cell) =>
      c.query?.firstMs === undefined
        ? undefined
        : {
            total: c.query.loadSeconds + c.query.firstMs / 1000,
            shown: `${c.query.loadSeconds.toFixed(2)} + ${(c.query.firstMs / 1000).toFixed(2)} s`,
          };
    const readyAt = at === undefined ? undefined : ready(at);
    const larger = (value: (c: Cell) => string) =>
      cells
        .filter((c) => sizes.slice(1).includes(c.size))
        .map((c) => `; ${SIZE_LABEL[c.size]}: ${c.query ? value(c) : 'not built'}`)
        .join('');
    const ratios = cells
      .filter((c) => c.indexBytes !== undefined && denseBytes(report, c.size))
      .map((c) => c.indexBytes! / denseBytes(report, c.size)!);
    const worst = ratios.length ? Math.max(...ratios) : undefined;
    const build1m = at1m?.build?.seconds;
    const rss1m = at1m?.build?.maxRssMiB;
    const missing = at1m && at1m.status !== 'ok' ? `**no** (${at1m.status})` : '–';
    lines.push(
      `| ${m} | ${p95 === undefined ? missing : yn(p95 <= P95_MS, `${p95.toFixed(1)} ms${larger((c) => `${c.query!.p95Ms.toFixed(1)} ms`)}`)} | ${build1m === undefined ? missing : yn(build1m <= BUILD_1M_S, `${Math.round(build1m)} s`)} | ${rss1m === undefined ? missing : yn(rss1m <= RSS_MB, `${Math.round(rss1m)} MB`)} | ${worst === undefined ? '–' : yn(worst <= BYTES_RATIO, `${worst.toFixed(2)}×`)} | ${load === undefined ? missing : yn(load <= LOAD_S, `${load.toFixed(2)} s${larger((c) => `${c.query!.loadSeconds.toFixed(2)} s`)}`)} | ${first === undefined || readyAt === undefined ? (load === undefined ? missing : '–') : yn(readyAt.total <= LOAD_S, `${readyAt.shown}${larger((c) => ready(c)?.shown ?? '–')}`)} |`,
    );
  }
  return lines;
}

export function render(report: ScaleReport): string {
  const m = report.machine;
  const commit = report.git.commit
    ? `${report.git.commit.slice(0, 10)}${report.git.dirty ? ' (with uncommitted changes)' : ''}`
    : 'unknown';
  const sizes = report.sizes.map(
    (s) =>
      `${SIZE_LABEL[s.label]}: ${s.documents.toLocaleString('en-US')} documents, ${s.tokens.toLocaleString('en-US')} tokens, ${(s.bytes / 2 ** 20).toFixed(1)} MB of JSONL, ${s.questions} questions (sha256 ${s.sha256.slice(0, 12)})`,
  );
  return [
    '# Scale: build, size, load and retrieval of every method at 100k, 1M and 10M tokens',
    '',
    `Run ${report.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}, commit ${commit};`,
    `1-minute load average ${report.loadAverage.start.toFixed(2)} at the start and ${report.loadAverage.end.toFixed(2)} at the end (other jobs shared the machine).`,
    '',
    `Corpus: an invented encyclopedia from \`benchmarks/scale-corpus.ts\` (seed ${report.seed}, generator v${report.generatorVersion}): articles about`,
    'people, towns, organisations and works that name each other (birthplaces, employers, founders, authors, publishers),',
    'and chronicle notes restating their facts; cl100k tokens of the documents’ text. Questions are asked about planted',
    'facts (birthplace, founder, author, publisher, and the town of the organisation a person joined).',
    '',
    ...sizes.map((s) => `- ${s}`),
    '',
    'Every method is built as `grag index <corpus.jsonl> --method <m> --no-cache` builds it offline (wink-nlp',
    'heuristics, the hashed TF-IDF embedder, HNSW, the offline preset where a method has presets), each build in a',
    'child process of its own: **build s** is the wall time of the command from reading the corpus to the saved index,',
    '**peak RSS** that child’s `maxRSS`. **index MB** is the bytes of the saved index directory, **× naive-dense** their',
    'ratio to naive-dense’s at the same size. In a fresh child, **load s** is making the providers the manifest names and',
    '`method.load` (as `grag query` does, module import not counted; **query RSS** is that child’s peak); **first query ms** is the',
    'first `method.retrieve` after it (what a one-shot `grag query` adds, with whatever a method makes on first use and keeps);',
    'then, after 5 untimed questions (that first one included), **p50 / p95 ms**',
    'is `method.retrieve` per question (budget 12,000 tokens, the CLI default) and **hit** the share of questions whose',
    'retrieved items include a document that states the fact asked (a sanity check, not a quality benchmark). A method whose',
    'retrieval is slow is timed on fewer questions (at least 20; no more once 2 minutes passed): “(n q)” says how many.',
    `**passages** are the method’s chunks (noderag: text units; sg-rag keeps facts, not chunks). A build is killed after ${report.timeoutMin} min.`,
    ...(report.sets?.length
      ? [
          '',
          `**Options of this run** (\`--set\`, over the defaults above): ${report.sets.map((kv) => `\`${kv}\``).join(', ')}.`,
        ]
      : []),
    ...(report.vectorPrecision
      ? [
          '',
          `**Vectors stored at ${report.vectorPrecision}** (\`grag index --vector-precision ${report.vectorPrecision}\`): the vector rows of every method that keeps them; bm25 keeps none and naive-dense saves its vector index whole, so neither changes.`,
        ]
      : []),
    '',
    ...mainTable(report),
    '',
    '## Growth with size',
    '',
    'Least-squares slope of log(value) against log(tokens) over the sizes a method completed: 1.00 is linear, 2.00',
    'quadratic. Peak RSS includes a fixed ~150–250 MB of Node, the tokenizer and wink-nlp, so its slope understates the',
    'growth of what a build itself holds; two sizes give a slope through two points, not a fit.',
    '',
    ...growthTable(report),
    '',
    '![build time against tokens, log-log](scale.svg)',
    '',
    '## Targets of issue 29',
    '',
    `“At ≥ ${PASSAGES.toLocaleString('en-US')} passages” is judged at the smallest size whose corpus naive-dense chunks into at least that many passages`,
    '(1M here: 4,944 passages); the value at each larger size follows for information. The byte ratio is the worst over the',
    'sizes a method completed. “–”: not measured in this run.',
    '',
    ...targetRows(report),
    '',
    `Reproduce: \`${report.command}\` from the repository root (\`--sizes 100k --methods bm25,da-rag\` reruns a part;`,
    `\`--render\` rewrites this page and scale.svg from scale.json without running). The builds took ${Math.round(runMinutes(report))} minutes in all${report.finished ? `; the whole run, loads, queries and corpora included, ${Math.round((Date.parse(report.finished) - Date.parse(report.date)) / 60_000)} minutes` : ''}.`,
    '',
  ].join('\n');
}

function runMinutes(report: ScaleReport): number {
  return report.cells.reduce((s, c) => s + (c.build?.seconds ?? 0), 0) / 60;
}

const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];

/** A log-log plot of build seconds against tokens, one line per method (plain SVG). */
export function renderSvg(report: ScaleReport): string {
  const W = 640;
  const H = 440;
  const L = 70;
  const R = 170;
  const T = 30;
  const B = 60;
  const ok = report.cells.filter((c) => c.build);
  const xs = ok.map((c) => c.tokens);
  const ys = ok.map((c) => c.build!.seconds);
  const lx0 = Math.floor(Math.log10(Math.min(...xs, 1e5)));
  // Generated corpora overshoot their target by a few tokens: 10,000,040 is drawn at 10M.
  const lx1 = Math.ceil(Math.log10(Math.max(...xs, 1e6)) - 0.01);
  const ly0 = Math.floor(Math.log10(Math.max(0.1, Math.min(...ys, 1))));
  const ly1 = Math.ceil(Math.log10(Math.max(...ys, 10)));
  const px = (t: number) => L + ((Math.log10(t) - lx0) / (lx1 - lx0)) * (W - L - R);
  const py = (s: number) => H - B - ((Math.log10(s) - ly0) / (ly1 - ly0)) * (H - T - B);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${L}" y="18" font-size="14">Build time against corpus size (log-log), ${report.date.slice(0, 10)}</text>`,
  ];
  for (let e = lx0; e <= lx1; e++) {
    const x = px(10 ** e).toFixed(1);
    out.push(`<line x1="${x}" y1="${T}" x2="${x}" y2="${H - B}" stroke="#ddd"/>`);
    out.push(`<text x="${x}" y="${H - B + 16}" text-anchor="middle">${tokensLabel(10 ** e)}</text>`);
  }
  for (let e = ly0; e <= ly1; e++) {
    const y = py(10 ** e).toFixed(1);
    out.push(`<line x1="${L}" y1="${y}" x2="${W - R}" y2="${y}" stroke="#ddd"/>`);
    out.push(
      `<text x="${L - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${10 ** e >= 1 ? 10 ** e : (10 ** e).toFixed(1)} s</text>`,
    );
  }
  out.push(`<text x="${(L + W - R) / 2}" y="${H - B + 32}" text-anchor="middle">cl100k tokens</text>`);
  const methods = [...new Set(report.cells.map((c) => c.method))];
  methods.forEach((m, i) => {
    const color = COLORS[i % COLORS.length]!;
    const pts = ok
      .filter((c) => c.method === m)
      .map((c) => `${px(c.tokens).toFixed(1)},${py(c.build!.seconds).toFixed(1)}`);
    if (pts.length > 1)
      out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.join(' ')}"/>`);
    for (const p of pts) {
      const [x, y] = p.split(',');
      out.push(`<circle cx="${x}" cy="${y}" r="3.5" fill="${color}"/>`);
    }
    const ly = T + 10 + i * 20;
    out.push(`<rect x="${W - R + 16}" y="${ly - 6}" width="14" height="4" fill="${color}"/>`);
    out.push(`<text x="${W - R + 36}" y="${ly}" dominant-baseline="middle">${m}</text>`);
  });
  const unfinished = report.cells.filter((c) => !c.build).map((c) => `${c.method} ${SIZE_LABEL[c.size]}`);
  if (unfinished.length)
    out.push(
      `<text x="${L}" y="${H - 8}" font-size="10" fill="#555">no point: ${unfinished.join(', ')} (see scale.md)</text>`,
    );
  out.push('</svg>', '');
  return out.join('\n');
}

function tokensLabel(t: number): string {
  return t >= 1e6 ? `${t / 1e6}M` : `${t / 1e3}k`;
}
