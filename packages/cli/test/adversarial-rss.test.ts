/**
 * Issue 26, adversarial limits: `grag index` as a real process over a folder of hostile files — a
 * damaged PDF, an encrypted one, one without a text layer, a PNG named .pdf, a .docx that is not a
 * ZIP, two DOCX ZIP bombs (one honest about its size, one lying), an HTML page with no main
 * content, a ragged CSV and a 200 MB file — plus two good Markdown files. None hangs (each under
 * 10 s), the process stays under 1 GB of peak RSS (the loaders' worker processes included), the
 * good files are indexed, and each bad file is named in exactly one line of stderr and counted in
 * the summary. Then a folder of PDF decompression bombs, apart.
 *
 * Peak RSS comes from `/usr/bin/time -v` where it exists, else from `process.resourceUsage()`
 * read at exit by `rss-preload.ts`. Either gives the largest single process, not the sum of a
 * process and its children, and `@grag/loaders` parses in child processes: so, on Linux, the
 * resident memory of the whole process tree is also added up from `/proc` every 5 ms, and the
 * bound applies to the larger of the two (elsewhere it covers the largest process alone).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { residentTree, utf8 } from '../../loaders/test/helpers.js';
import {
  makeDamagedPdf,
  makeEncryptedPdf,
  makeImageOnlyPdf,
  makeLyingZip,
  makePdfBomb,
  makeZipBomb,
} from '../../loaders/test/make.js';

const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
const preload = fileURLToPath(new URL('./rss-preload.ts', import.meta.url));
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const TIME = '/usr/bin/time';

const MiB = 1024 * 1024;
const GB = 1e9;
/** What each file may take, and the whole run. */
const FILE_MS = 10_000;
const RUN_MS = 60_000;

const GOOD: Record<string, string> = {
  'harbour.md':
    '# Harbour\n\nPort Halvard is a harbour city. The Kessler Shipyard builds research vessels.\n',
  'strait.md': '# Strait\n\nThe Nordlys ferry crosses the Veskan Strait from Port Halvard every hour.\n',
};

const png = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);

interface BadFile {
  name: string;
  content?: () => Uint8Array | string | Promise<Uint8Array>;
  /** Written as a sparse file of this many bytes instead. */
  sparse?: number;
  /** What its one line must say. */
  reason: RegExp;
  kind: 'file' | 'record';
}

/** The bad files of issue 26's list. */
const BAD: BadFile[] = [
  { name: 'damaged.pdf', content: makeDamagedPdf, reason: /damaged PDF/, kind: 'file' },
  {
    name: 'sealed.pdf',
    content: makeEncryptedPdf,
    reason: /encrypted PDF \(it needs a password\)/,
    kind: 'file',
  },
  { name: 'scan.pdf', content: () => makeImageOnlyPdf(), reason: /no text layer/, kind: 'file' },
  { name: 'photo.pdf', content: () => png, reason: /the content is a PNG image, not a PDF/, kind: 'file' },
  { name: 'minutes.docx', content: () => 'Minutes saved as plain text.', reason: /not a ZIP/, kind: 'file' },
  // 256 MiB of zeros in 256 KiB, declared: over the default 200 MiB limits.maxExpandedBytes.
  {
    name: 'bomb.docx',
    content: () => makeZipBomb(256 * MiB),
    reason: /expands to 256 MiB.*ZIP bomb/,
    kind: 'file',
  },
  // The same, declaring 1 KiB.
  {
    name: 'liar.docx',
    content: () => makeLyingZip(256 * MiB),
    reason: /past its declared size/,
    kind: 'file',
  },
  {
    name: 'nomain.html',
    content: () =>
      '<html><body><nav><a href="/">Home</a> <a href="/a">About</a></nav><footer>Copyright</footer></body></html>',
    reason: /no main content/,
    kind: 'file',
  },
  {
    name: 'ragged.csv',
    content: () => 'name,role,ship\nIlse Marren,captain,Meridian\nJon Alm,engineer\nEva Lund,cook,Meridian\n',
    reason: /row 3: 2 fields where the header has 3/,
    kind: 'record',
  },
  // 200 MB, sparse: no disk is filled.
  {
    name: 'huge.txt',
    sparse: 200 * 1000 * 1000,
    reason: /too large \(190\.7 MiB; the limit is 100 MiB\)/,
    kind: 'file',
  },
];

/** PDF decompression bombs: 512 MiB of content stream in half a MiB of file, each. */
const BOMBS = ['bomb-1.pdf', 'bomb-2.pdf'];

interface ChildRun {
  code: number | null;
  stderr: string;
  /** Each stderr line with the milliseconds since the start at which it arrived. */
  lines: { text: string; at: number }[];
  ms: number;
  /** Peak resident set size of the largest single process, in bytes. */
  maxRss: number;
  /** Peak resident memory of the process and all its descendants together, sampled (Linux only). */
  treeRss: number | undefined;
}

/** The larger peak: of one process, or of the tree summed. */
const peakRss = (r: ChildRun) => Math.max(r.maxRss, r.treeRss ?? 0);

let root: string;

/** `grag index <corpus> --method bm25 --out <out>` as a child process, timed and measured. */
function indexInChild(corpus: string, out: string): Promise<ChildRun> {
  const viaTime = existsSync(TIME);
  const node = [
    process.execPath,
    '--import',
    'tsx',
    ...(viaTime ? [] : ['--import', preload]),
    bin,
    ...['index', corpus, '--method', 'bm25', '--out', out, '--vector-index', 'flat'],
  ];
  const [command, ...args] = viaTime ? [TIME, '-v', ...node] : node;
  const started = performance.now();
  const child = spawn(command!, args, {
    cwd: repo,
    env: { PATH: process.env.PATH, TSX_TSCONFIG_PATH: join(repo, 'tsconfig.json') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let treeRss: number | undefined;
  const sampler =
    process.platform === 'linux' && child.pid !== undefined
      ? setInterval(() => {
          treeRss = Math.max(treeRss ?? 0, residentTree(child.pid!));
        }, 5)
      : undefined;
  let stderr = '';
  let pending = '';
  const lines: { text: string; at: number }[] = [];
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop()!;
    const at = performance.now() - started;
    for (const text of parts) lines.push({ text, at });
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sampler);
      const ms = performance.now() - started;
      const kb = viaTime
        ? /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1]
        : /^grag-rss: (\d+)$/m.exec(stderr)?.[1];
      if (kb === undefined) reject(new Error(`no peak RSS in the output:\n${stderr}`));
      else resolve({ code, stderr, lines, ms, maxRss: Number(kb) * 1024, treeRss });
    });
  });
}

/** A folder `name` under the root holding the good files and `bad`; returns its path. */
async function folder(name: string, bad: BadFile[]): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir);
  for (const [file, text] of Object.entries(GOOD)) await writeFile(join(dir, file), text);
  for (const file of bad) {
    const path = join(dir, file.name);
    if (file.sparse !== undefined) {
      const handle = await open(path, 'w');
      await handle.truncate(file.sparse);
      await handle.close();
    } else {
      const content = await file.content!();
      await writeFile(path, typeof content === 'string' ? utf8(content) : content);
    }
  }
  return dir;
}

/** The lines grag printed (not those of /usr/bin/time or the preload). */
const gragLines = (r: ChildRun) => r.lines.filter((l) => l.text.startsWith('grag: '));
/** `grag: reading <path> (file 3 of 12, 1.2 MiB)…`: a file still loading after 2 s. */
const SLOW = /^grag: reading (.+) \(file \d+ of \d+, .+\)…$/;

/**
 * The longest any one file can have taken. Files are read one after another; one still loading
 * after 2 s gets a `reading` line, and the `skipped` lines come once all are read. So a file with
 * a `reading` line ended before the next such line came (less its 2 s), or before the first
 * `skipped` line; a file without one took under 2 s.
 */
function longestFileMs(r: ChildRun): number {
  const slow = gragLines(r).filter((l) => SLOW.test(l.text));
  const readEnd = gragLines(r).find((l) => l.text.startsWith('grag: skipped '))?.at ?? r.ms;
  let longest = 2000;
  for (const [i, line] of slow.entries()) {
    const end = i + 1 < slow.length ? slow[i + 1]!.at - 2000 : readEnd;
    longest = Math.max(longest, end - (line.at - 2000));
  }
  return longest;
}

/** Each bad file is named in exactly one line besides progress (`skipped …: <reason>`). */
function expectNamedOnce(r: ChildRun, dir: string, bad: BadFile[]): void {
  const lines = gragLines(r)
    .map((l) => l.text)
    .filter((text) => !SLOW.test(text));
  for (const file of bad) {
    const path = join(dir, file.name);
    const naming = lines.filter((line) => line.includes(path));
    expect(naming, file.name).toHaveLength(1);
    expect(naming[0]).toMatch(
      new RegExp(`^grag: skipped ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[: ]`),
    );
    expect(naming[0], file.name).toMatch(file.reason);
  }
  for (const name of Object.keys(GOOD))
    expect(lines.filter((line) => line.includes(join(dir, name)))).toEqual([]);
}

/** The ids of the documents a bm25 index holds. */
async function indexedIds(out: string): Promise<string[]> {
  const { documents } = JSON.parse(await readFile(join(out, 'chunks.json'), 'utf8')) as {
    documents: string[];
  };
  return [...documents].sort();
}

const report = (what: string, r: ChildRun) =>
  console.log(
    `adversarial-rss: ${what}: ${(r.ms / 1000).toFixed(1)} s, longest file at most ${(longestFileMs(r) / 1000).toFixed(1)} s, peak RSS ${(r.maxRss / MiB).toFixed(0)} MiB of one process (${existsSync(TIME) ? TIME : 'process.resourceUsage'})${r.treeRss === undefined ? '' : `, ${(r.treeRss / MiB).toFixed(0)} MiB of the process tree (sampled)`}`,
  );

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-adv-rss-'));
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('grag index over the hostile files of issue 26, as a process', () => {
  let dir: string;
  let run: ChildRun;
  beforeAll(async () => {
    dir = await folder('hostile', BAD);
    run = await indexInChild(dir, join(root, 'hostile-index'));
    report('hostile files', run);
  }, 90_000);

  it('exits 0 within a minute, no file taking 10 s', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.ms).toBeLessThan(RUN_MS);
    expect(longestFileMs(run), run.stderr).toBeLessThan(FILE_MS);
  });

  it('stays under 1 GB of peak RSS, worker processes included', () => {
    expect(run.maxRss).toBeGreaterThan(0);
    expect(peakRss(run)).toBeLessThan(GB);
  });

  it('names each bad file in exactly one line, with its reason', () => {
    expectNamedOnce(run, dir, BAD);
  });

  it('counts the skipped files and records in the summary', () => {
    const files = BAD.filter((b) => b.kind === 'file').length;
    const records = BAD.filter((b) => b.kind === 'record').length;
    // The two Markdown files and the ragged CSV's two good rows, from three files.
    expect(run.stderr).toContain(
      `grag: indexing 4 documents from 3 files (${files + records} skipped) with bm25\n`,
    );
    expect(run.stderr).toMatch(
      new RegExp(
        `^grag: ${files} files skipped \\(.+\\) and ${records} record skipped \\(.+\\); each is named above$`,
        'm',
      ),
    );
  });

  it('indexes the good files', async () => {
    expect(await indexedIds(join(root, 'hostile-index'))).toEqual([
      'harbour.md',
      'ragged.csv#row2',
      'ragged.csv#row4',
      'strait.md',
    ]);
  });
});

describe('grag index over two PDF decompression bombs, as a process', () => {
  let dir: string;
  let run: ChildRun;
  beforeAll(async () => {
    const bomb = makePdfBomb(512 * MiB);
    const bad = BOMBS.map((name) => ({
      name,
      content: () => bomb,
      reason: /needs more than 512 MiB of memory to parse \(limits\.maxMemoryBytes\)/,
      kind: 'file' as const,
    }));
    dir = await folder('bombs', bad);
    run = await indexInChild(dir, join(root, 'bombs-index'));
    report('two PDF bombs', run);
  }, 90_000);

  it('skips each at limits.maxMemoryBytes, no file taking 10 s, and indexes the good files', async () => {
    expect(run.code, run.stderr).toBe(0);
    expect(longestFileMs(run), run.stderr).toBeLessThan(FILE_MS);
    expectNamedOnce(
      run,
      dir,
      BOMBS.map((name) => ({ name, reason: /needs more than 512 MiB of memory to parse/, kind: 'file' })),
    );
    expect(await indexedIds(join(root, 'bombs-index'))).toEqual(['harbour.md', 'strait.md']);
  });

  // Each bomb kills its worker process, and its memory goes back to the system with it. (With
  // worker threads, two bombs peaked near 1.2 GB and four near 1.7 GB: a dead thread's malloc
  // arena was neither reused nor given back.)
  it('stays under 1 GB of peak RSS, worker processes included', () => {
    expect(peakRss(run)).toBeLessThan(GB);
  });
});
