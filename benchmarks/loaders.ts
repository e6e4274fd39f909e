/**
 * @grag/loaders: throughput of every format's loader on seeded generated files, and the PDF loader
 * against poppler's `pdftotext` (the reference text extractor) and pdfjs-dist on the same PDFs in
 * the same run — MB/s, pages/s, and the token-level F1 of the loader's text against pdftotext's,
 * per file and per page (must be ≥ 0.95).
 *
 *   npx tsx benchmarks/loaders.ts [--runs 5] [--out benchmarks/results]
 *
 * Needs `pdftotext` (Debian: poppler-utils). Files are generated with pdf-lib and docx (the loaders'
 * test helpers) from a fixed seed; nothing is read from disk but what is written here.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { seededRandom } from '@grag/eval';
import { loadFile } from '@grag/loaders';
import { pageText, parsePdf } from '../packages/loaders/src/parse/pdf.js';
import { type DocxBlock, makeDocx, makePdf, type PdfFont } from '../packages/loaders/test/make.js';
import { machine } from './lib.js';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const F1_FLOOR = 0.95;

const WORDS = (
  'harbour city northern coast peninsula fish market century seat trading company terraces stone ' +
  'stairways council mayor engineer breakwater storm shipyard ferries research vessels museum customs ' +
  'terminal island strait eelgrass meadows lighthouse keeper pilot tide plankton institute expedition ' +
  'survey dredging welding school college graduate medal bronze foundry river waterfall paper mill ' +
  'concert hall composer suite anniversary village pier sonar laboratory Halvard Orsa Skarn Dunmore ' +
  'Merrow Kessler Lindqvist Marren Brandt Wren Falk Veskan Tallin café Malmö naïve 1881 1904 1996 2014 2021'
).split(' ');

interface Stats {
  min: number;
  median: number;
  max: number;
}

function stats(values: number[]): Stats {
  const s = [...values].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]!, max: s.at(-1)! };
}

async function time(runs: number, fn: () => Promise<unknown>): Promise<Stats> {
  return (await interleaved(runs, { fn })).fn;
}

/**
 * Times each function `runs` times after one warm-up (module loading, the worker pool, JIT),
 * taking turns — run 1 of each, then run 2 of each — so that load from other processes falls on
 * all of them alike.
 */
async function interleaved<K extends string>(
  runs: number,
  fns: Record<K, () => Promise<unknown>>,
): Promise<Record<K, Stats>> {
  const keys = Object.keys(fns) as K[];
  const ms = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (const k of keys) await fns[k]();
  for (let i = 0; i < runs; i++) {
    for (const k of keys) {
      const started = performance.now();
      await fns[k]();
      ms[k].push(performance.now() - started);
    }
  }
  return Object.fromEntries(keys.map((k) => [k, stats(ms[k])])) as Record<K, Stats>;
}

/**
 * A fresh Node process that imports a pdf.js build and extracts every page of `file`: wall time
 * (from process start to the last page) and peak RSS, the cost a CLI run or a new worker pays once.
 */
async function coldStart(
  cwd: string,
  importExpr: string,
  file: string,
  runs: number,
): Promise<{ ms: Stats; rssMiB: Stats }> {
  const script = `
import { readFileSync } from 'node:fs';
const pdfjs = await ${importExpr};
const data = new Uint8Array(readFileSync(${JSON.stringify(file)}));
const doc = await pdfjs.getDocument({ data, isEvalSupported: false, useSystemFonts: false, disableFontFace: true, verbosity: 0 }).promise;
for (let n = 1; n <= doc.numPages; n++) await (await doc.getPage(n)).getTextContent();
console.log(JSON.stringify({ ms: performance.now(), rss: process.resourceUsage().maxRSS / 1024 }));`;
  const ms: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = (await run(process.execPath, ['--input-type=module', '-e', script], { cwd })).stdout;
    const r = JSON.parse(out.trim().split('\n').at(-1)!) as { ms: number; rss: number };
    ms.push(r.ms);
    rss.push(r.rss);
  }
  return { ms: stats(ms), rssMiB: stats(rss) };
}

/**
 * The resident memory of this process's children (the loader workers; tsx's esbuild), from /proc
 * on Linux; 0 elsewhere.
 */
function childrenRss(): number {
  let bytes = 0;
  try {
    for (const task of readdirSync(`/proc/${process.pid}/task`)) {
      for (const pid of readFileSync(`/proc/${process.pid}/task/${task}/children`, 'latin1')
        .trim()
        .split(' ')) {
        if (!pid) continue;
        const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1];
        bytes += Number(kb ?? 0) * 1024;
      }
    }
  } catch {
    // Not Linux, or a child ended while being read.
  }
  return bytes;
}

/** Lower-case word tokens (letters and digits), as a multiset. */
function tokens(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/** Token-level F1 of `text` against `reference` (SQuAD-style bag-of-tokens overlap). */
function f1(text: string, reference: string): number {
  const a = tokens(text);
  const b = tokens(reference);
  let overlap = 0;
  let na = 0;
  let nb = 0;
  for (const n of a.values()) na += n;
  for (const n of b.values()) nb += n;
  for (const [t, n] of a) overlap += Math.min(n, b.get(t) ?? 0);
  if (na === 0 && nb === 0) return 1;
  if (overlap === 0) return 0;
  const p = overlap / na;
  const r = overlap / nb;
  return (2 * p * r) / (p + r);
}

/** Lines of seeded words, each ending with a period, at most `width` characters. */
function sentenceLines(random: () => number, count: number, width: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    let line = '';
    for (;;) {
      const word = WORDS[Math.floor(random() * WORDS.length)]!;
      if (line.length + word.length + 2 > width) break;
      line = line ? `${line} ${word}` : word[0]!.toUpperCase() + word.slice(1);
    }
    lines.push(`${line}.`);
  }
  return lines;
}

interface PdfCase {
  name: string;
  pages: number;
  font: PdfFont;
  size: number;
  columns?: 1 | 2;
  wordByWord?: boolean;
}

const PDF_CASES: PdfCase[] = [
  { name: 'report-20p (Helvetica 11 pt)', pages: 20, font: 'Helvetica', size: 11 },
  { name: 'book-100p (Times 12 pt)', pages: 100, font: 'Times-Roman', size: 12 },
  {
    name: 'paper-50p (2 columns, word by word)',
    pages: 50,
    font: 'Times-Roman',
    size: 9,
    columns: 2,
    wordByWord: true,
  },
  { name: 'manual-400p (Courier 9 pt)', pages: 400, font: 'Courier', size: 9 },
];

async function makeCasePdf(c: PdfCase, random: () => number): Promise<Uint8Array> {
  const columns = c.columns ?? 1;
  const lines = Math.floor(680 / (c.size * 1.6)) * columns;
  const width = Math.floor(500 / columns / (c.size * (c.font === 'Courier' ? 0.6 : 0.5)));
  const pages = Array.from({ length: c.pages }, () => sentenceLines(random, lines, width));
  return makePdf(pages, {
    font: c.font,
    size: c.size,
    title: c.name,
    columns,
    wordByWord: c.wordByWord ?? false,
  });
}

type PdfJs = {
  getDocument(src: object): {
    promise: Promise<{
      numPages: number;
      getPage(n: number): Promise<{ getTextContent(): Promise<{ items: unknown[] }>; cleanup(): void }>;
      destroy(): Promise<void>;
    }>;
  };
};

/** pdfjs-dist's legacy build (the package's Node entry), text joined as the loader joins it. */
async function pdfjsDistText(pdfjs: PdfJs, bytes: Uint8Array): Promise<string[]> {
  const doc = await pdfjs.getDocument({
    data: bytes.slice(),
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    verbosity: 0,
  }).promise;
  const pages: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    pages.push(pageText((await page.getTextContent()).items as never));
    page.cleanup();
  }
  await doc.destroy();
  return pages;
}

async function otherFormats(
  random: () => number,
): Promise<{ name: string; path: string; bytes: Uint8Array }[]> {
  const para = (n: number) => sentenceLines(random, n, 90).join(' ');
  const md: string[] = ['# Harbour handbook', ''];
  const html: string[] = [
    '<!doctype html><html><head><title>Harbour handbook</title></head><body>',
    '<header><a href="/">Port Halvard</a></header><nav><ul><li><a href="/a">Ferries</a></li><li><a href="/b">Contact</a></li></ul></nav>',
    '<main><article><h1>Harbour handbook</h1>',
  ];
  const docx: DocxBlock[] = [{ title: 'Harbour handbook' }];
  for (let s = 0; s < 400; s++) {
    md.push(`## Section ${s}`, '', para(4), '', `- ${para(1)}`, `- ${para(1)}`, '', para(3), '');
    if (s % 10 === 0)
      md.push('```', 'depart 07:10 arrive 08:00', '```', '', '| a | b |', '|---|---|', '| 1 | 2 |', '');
    html.push(
      `<h2>Section ${s}</h2><p>${para(4)}</p><ul><li>${para(1)}</li><li>${para(1)}</li></ul><p>${para(3)}</p>`,
    );
    if (s % 10 === 0) html.push('<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>');
    docx.push(
      { heading: s % 5 === 0 ? 1 : 2, text: `Section ${s}` },
      { paragraph: para(4) },
      { paragraph: para(3) },
    );
    if (s % 10 === 0)
      docx.push({
        table: [
          ['a', 'b'],
          ['1', '2'],
        ],
      });
  }
  html.push('</article></main><footer>Copyright Port Halvard</footer></body></html>');
  const rows = 100_000;
  const csv = ['id,title,text'];
  const json: object[] = [];
  const jsonl: string[] = [];
  for (let i = 0; i < rows; i++) {
    const text = para(1);
    csv.push(`r${i},Record ${i},"${text}"`);
    json.push({ id: `r${i}`, title: `Record ${i}`, text });
    jsonl.push(JSON.stringify({ id: `r${i}`, title: `Record ${i}`, text }));
  }
  const utf8 = (s: string) => new TextEncoder().encode(s);
  return [
    { name: 'Markdown (400 sections)', path: 'handbook.md', bytes: utf8(md.join('\n')) },
    { name: 'HTML (400 sections, nav, footer)', path: 'handbook.html', bytes: utf8(html.join('\n')) },
    { name: 'DOCX (400 headings, 40 tables)', path: 'handbook.docx', bytes: await makeDocx(docx) },
    { name: 'CSV (100,000 rows)', path: 'records.csv', bytes: utf8(csv.join('\n')) },
    { name: 'JSON (100,000 records)', path: 'records.json', bytes: utf8(JSON.stringify(json)) },
    { name: 'JSONL (100,000 lines)', path: 'records.jsonl', bytes: utf8(jsonl.join('\n')) },
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '5' },
      out: { type: 'string', default: 'benchmarks/results' },
    },
  });
  const runs = Number(values.runs);
  const random = seededRandom(2026);
  const poppler =
    execFileSync('pdftotext', ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim() ||
    'pdftotext';
  const popplerVersion = /version ([\d.]+)/.exec(
    execFileSync('sh', ['-c', 'pdftotext -v 2>&1'], { encoding: 'utf8' }),
  )?.[1];
  const requireFromLoaders = createRequire(new URL('../packages/loaders/package.json', import.meta.url));
  const pdfjsDist = (await import(
    pathToFileURL(requireFromLoaders.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href
  )) as PdfJs;
  const version = (name: string): string =>
    JSON.parse(
      readFileSync(new URL(`../packages/loaders/node_modules/${name}/package.json`, import.meta.url), 'utf8'),
    ).version;
  const pdfjsVersion = version('pdfjs-dist');
  const unpdfVersion = version('unpdf');
  const dir = mkdtempSync(join(tmpdir(), 'grag-bench-loaders-'));
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss() + childrenRss());
  }, 25);

  const pdfRows = [];
  try {
    for (const c of PDF_CASES) {
      const bytes = await makeCasePdf(c, random);
      const file = join(dir, `${c.pages}.pdf`);
      writeFileSync(file, bytes);
      const mb = bytes.byteLength / 1e6;
      process.stderr.write(`${c.name}: ${(bytes.byteLength / MiB).toFixed(2)} MiB\n`);

      const loaded = await loadFile({ path: 'x.pdf', bytes });
      const doc = loaded.documents[0]!;
      const loaderPages = doc.segments!.map((s) => doc.text.slice(s.start, s.end));
      const reference = (await run('pdftotext', ['-enc', 'UTF-8', file, '-'], { maxBuffer: 1 << 28 })).stdout;
      const referencePages = reference.split('\f').slice(0, c.pages);
      const pageF1 = referencePages.map((ref, i) => f1(loaderPages[i] ?? '', ref));
      const distPages = await pdfjsDistText(pdfjsDist, bytes);
      const row = {
        file: c.name,
        pages: c.pages,
        bytes: bytes.byteLength,
        f1: f1(doc.text, reference),
        minPageF1: Math.min(...pageF1),
        pdfjsDistF1: f1(distPages.join('\n\n'), reference),
        timesMs: await interleaved(runs, {
          loader: () => loadFile({ path: 'x.pdf', bytes }),
          inProcess: () =>
            parsePdf({
              format: 'pdf',
              path: 'x.pdf',
              bytes: bytes.slice(),
              fields: {},
              limits: { maxPages: 10_000, maxExpandedBytes: 1, maxRecords: 1 },
            }),
          pdfjsDist: () => pdfjsDistText(pdfjsDist, bytes),
          pdftotext: () => run('pdftotext', ['-enc', 'UTF-8', file, '-'], { maxBuffer: 1 << 28 }),
        }),
      };
      for (const [k, t] of Object.entries(row.timesMs))
        process.stderr.write(
          `  ${k}: ${t.median.toFixed(0)} ms, ${(mb / (t.median / 1000)).toFixed(1)} MB/s, ${(c.pages / (t.median / 1000)).toFixed(0)} pages/s\n`,
        );
      process.stderr.write(
        `  F1 vs pdftotext ${row.f1.toFixed(4)} (worst page ${row.minPageF1.toFixed(4)})\n`,
      );
      pdfRows.push(row);
    }

    // Cold start of each pdf.js build on the first PDF: a new process, import, every page.
    const loadersDir = fileURLToPath(new URL('../packages/loaders/', import.meta.url));
    const first = join(dir, `${PDF_CASES[0]!.pages}.pdf`);
    const cold = {
      unpdf: await coldStart(loadersDir, "import('unpdf').then((m) => m.getResolvedPDFJS())", first, runs),
      pdfjsDist: await coldStart(loadersDir, "import('pdfjs-dist/legacy/build/pdf.mjs')", first, runs),
    };
    process.stderr.write(
      `cold start: unpdf ${cold.unpdf.ms.median.toFixed(0)} ms ${cold.unpdf.rssMiB.median.toFixed(0)} MiB, pdfjs-dist ${cold.pdfjsDist.ms.median.toFixed(0)} ms ${cold.pdfjsDist.rssMiB.median.toFixed(0)} MiB\n`,
    );

    const formatRows = [];
    for (const f of await otherFormats(random)) {
      const result = await loadFile({ path: f.path, bytes: f.bytes });
      const t = await time(runs, () => loadFile({ path: f.path, bytes: f.bytes }));
      const row = {
        format: f.name,
        bytes: f.bytes.byteLength,
        documents: result.documents.length,
        segments: result.documents.reduce((n, d) => n + (d.segments?.length ?? 0), 0),
        ms: t,
      };
      process.stderr.write(
        `${f.name}: ${t.median.toFixed(0)} ms, ${(f.bytes.byteLength / 1e6 / (t.median / 1000)).toFixed(1)} MB/s\n`,
      );
      formatRows.push(row);
    }

    // Per-file cost of the worker: small Markdown files one after another, warm pool.
    const small = new TextEncoder().encode(
      '# Note\n\nThe ferry leaves at noon.\n\n## Fares\n\nChildren travel free.\n',
    );
    const perFile = await time(runs, async () => {
      for (let i = 0; i < 100; i++) await loadFile({ path: `n${i}.md`, bytes: small });
    });
    clearInterval(sampler);

    const meta = { benchmark: 'loaders', date: new Date().toISOString(), machine: machine(), runs };
    const versions = { unpdf: unpdfVersion, pdfjsDist: pdfjsVersion, pdftotext: popplerVersion ?? poppler };
    const smallFileMs = perFile.median / 100;
    mkdirSync(values.out, { recursive: true });
    writeFileSync(
      join(values.out, 'loaders.json'),
      `${JSON.stringify({ ...meta, versions, pdf: pdfRows, coldStart: cold, formats: formatRows, smallFileMs, peakRssMiB: peakRss / MiB }, null, 2)}\n`,
    );

    const m = meta.machine;
    const rate = (bytes: number, ms: number) => (bytes / 1e6 / (ms / 1000)).toFixed(1);
    const pps = (pages: number, ms: number) => (pages / (ms / 1000)).toFixed(0);
    const pdfTable = [
      '| PDF | MiB | extractor | median ms | MB/s | pages/s |',
      '|---|---:|---|---:|---:|---:|',
      ...pdfRows.flatMap((r) =>
        (
          [
            ['`pdfLoader` (worker, pooled)', r.timesMs.loader],
            [`pdf.js ${'in-process'} (unpdf ${versions.unpdf}), no worker`, r.timesMs.inProcess],
            [`pdfjs-dist ${versions.pdfjsDist} legacy build, in-process`, r.timesMs.pdfjsDist],
            [`pdftotext ${versions.pdftotext} (one process per file)`, r.timesMs.pdftotext],
          ] as const
        ).map(
          ([label, t], i) =>
            `| ${i === 0 ? r.file : ''} | ${i === 0 ? (r.bytes / MiB).toFixed(2) : ''} | ${label} | ${t.median.toFixed(0)} | ${rate(r.bytes, t.median)} | ${pps(r.pages, t.median)} |`,
        ),
      ),
    ];
    const f1Table = [
      '| PDF | pages | F1, loader vs pdftotext | worst page F1 | F1, pdfjs-dist vs pdftotext |',
      '|---|---:|---:|---:|---:|',
      ...pdfRows.map(
        (r) =>
          `| ${r.file} | ${r.pages} | ${r.f1.toFixed(4)} | ${r.minPageF1.toFixed(4)} | ${r.pdfjsDistF1.toFixed(4)} |`,
      ),
    ];
    const formatTable = [
      '| file | MiB | documents | segments | min ms | median ms | max ms | MB/s |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...formatRows.map(
        (r) =>
          `| ${r.format} | ${(r.bytes / MiB).toFixed(2)} | ${r.documents.toLocaleString('en')} | ${r.segments.toLocaleString('en')} | ${r.ms.min.toFixed(0)} | ${r.ms.median.toFixed(0)} | ${r.ms.max.toFixed(0)} | ${rate(r.bytes, r.ms.median)} |`,
      ),
    ];
    const md = [
      '# @grag/loaders: throughput and PDF text quality',
      '',
      `Run ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}.`,
      `${runs} timed runs after one warm-up, the extractors of a file taking turns; median shown. Files generated`,
      'from a fixed seed (pdf-lib, docx). The machine is shared with other jobs: absolute times vary between runs.',
      '',
      '## PDF: the loader against pdftotext and pdfjs-dist, same files, same run',
      '',
      ...pdfTable,
      '',
      `Cold start: a new Node process imports pdf.js and reads every page of ${PDF_CASES[0]!.name} (median of ${runs}):`,
      '',
      '| pdf.js build | ms from process start | peak RSS MiB |',
      '|---|---:|---:|',
      `| unpdf ${versions.unpdf} (pdf.js serverless build, bundled) | ${cold.unpdf.ms.median.toFixed(0)} | ${cold.unpdf.rssMiB.median.toFixed(0)} |`,
      `| pdfjs-dist ${versions.pdfjsDist} legacy build | ${cold.pdfjsDist.ms.median.toFixed(0)} | ${cold.pdfjsDist.rssMiB.median.toFixed(0)} |`,
      '',
      'Token-level F1 (lower-cased letters and digits, as a multiset) of the extracted text against',
      "pdftotext's, whole file and page by page (pdftotext's pages split at form feeds):",
      '',
      ...f1Table,
      '',
      '## Other formats (`loadFile`, worker, pooled)',
      '',
      ...formatTable,
      '',
      `Per-file cost with a warm pool: ${smallFileMs.toFixed(2)} ms for a small Markdown file (100 files one after another).`,
      `Peak RSS of the whole benchmark process and its worker processes (generated files, both in-process pdf.js builds, the loader workers): ${(peakRss / MiB).toFixed(0)} MiB.`,
      '',
      'Reproduce: `npx tsx benchmarks/loaders.ts` (needs `pdftotext`, Debian package poppler-utils).',
      '',
    ].join('\n');
    writeFileSync(join(values.out, 'loaders.md'), md);
    process.stdout.write(`${md}\n`);
    const bad = pdfRows.filter((r) => r.f1 < F1_FLOOR);
    if (bad.length > 0) {
      process.stderr.write(
        `F1 below ${F1_FLOOR}: ${bad.map((r) => `${r.file} ${r.f1.toFixed(4)}`).join(', ')}\n`,
      );
      process.exitCode = 1;
    }
  } finally {
    clearInterval(sampler);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
