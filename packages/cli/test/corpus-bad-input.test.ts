/**
 * Bad input, nothing lost: a folder of good files and one bad one — a damaged PDF, a .docx that is
 * not a ZIP archive, a file whose content is not what its extension says, a ragged CSV, an empty
 * file — is indexed without the bad one, which gets exactly one line (`grag: skipped <path>:
 * <reason>`) and is counted in the build report; the exit code is 0, as for any partial input.
 * Then all of them at once, and `grag add` of the same.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, cli, expectNoCrash } from './adversarial-helpers.js';

const GOOD: Record<string, string> = {
  'harbour.md':
    '# Harbour\n\nPort Halvard is a harbour city. The Kessler Shipyard builds research vessels.\n',
  'ferry.txt': 'The Nordlys ferry crosses the Veskan Strait from Port Halvard every hour.\n',
};

/** The bad files: name, content, and the reason their one line must give. */
const BAD: { name: string; content: string | Uint8Array; reason: RegExp; kind: 'file' | 'record' }[] = [
  { name: 'report.pdf', content: '%PDF-1.7 garbage', reason: /damaged PDF/, kind: 'file' },
  {
    name: 'minutes.docx',
    content: 'These minutes were saved as plain text.',
    reason: /not a ZIP/,
    kind: 'file',
  },
  {
    name: 'scan.pdf',
    content: Uint8Array.from([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
    ]),
    reason: /PNG image, not a PDF/,
    kind: 'file',
  },
  {
    name: 'crew.csv',
    content: 'name,role,ship\nIlse Marren,captain,Meridian\nJon Alm,engineer\nEva Lund,cook,Meridian\n',
    reason: /crew\.csv row 3: 2 fields where the header has 3/,
    kind: 'record',
  },
  { name: 'empty.md', content: '', reason: /empty file/, kind: 'file' },
];

let root: string;
const outOf = (name: string) => join(root, 'out', name);

async function folder(name: string, files: Record<string, string | Uint8Array>): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) await writeFile(join(dir, file), content);
  return dir;
}

/** The ids of the documents a bm25 index holds. */
async function indexedIds(out: string): Promise<string[]> {
  return [
    ...(JSON.parse(await readFile(join(out, 'chunks.json'), 'utf8')) as { documents: string[] }).documents,
  ].sort();
}

/** Exit 0, no crash; the informational lines (what was read, built, skipped) are checked apart. */
function expectBuilt(r: CliResult): void {
  expectNoCrash(r);
  expect(r.code, r.err).toBe(0);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-bad-input-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('grag index: one bad file among good ones', () => {
  it.each(BAD.map((bad) => [bad.name, bad] as const))('%s', async (_name, bad) => {
    const dir = await folder(`case-${bad.name}`, { ...GOOD, [bad.name]: bad.content });
    const started = performance.now();
    const r = await cli(['index', dir, '--method', 'bm25', '--out', outOf(bad.name)], root);
    expect(performance.now() - started).toBeLessThan(10_000);
    expectBuilt(r);
    const lines = r.err.split('\n').filter((line) => line.startsWith('grag: skipped '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^grag: skipped ${join(dir, bad.name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    expect(lines[0]).toMatch(bad.reason);
    // Counted in the build report, by kind and reason.
    expect(r.err).toContain(`grag: 1 ${bad.kind} skipped (`);
    const ids = await indexedIds(outOf(bad.name));
    expect(ids).toEqual(expect.arrayContaining(Object.keys(GOOD)));
    // The ragged CSV's good rows are indexed; no other bad file gives a document.
    expect(ids.filter((id) => !(id in GOOD)).every((id) => id.startsWith('crew.csv'))).toBe(true);
    if (bad.name === 'crew.csv') expect(ids.filter((id) => id.startsWith('crew.csv'))).toHaveLength(2);
  });
});

describe('grag index and add: every bad file at once', () => {
  it('indexes the good files, names each bad one in one line and counts them by reason', async () => {
    const dir = await folder('all', { ...GOOD, ...Object.fromEntries(BAD.map((b) => [b.name, b.content])) });
    const started = performance.now();
    const r = await cli(['index', dir, '--method', 'bm25', '--out', outOf('all')], root);
    expect(performance.now() - started).toBeLessThan(10_000);
    expectBuilt(r);
    const lines = r.err.split('\n').filter((line) => line.startsWith('grag: skipped '));
    expect(lines).toHaveLength(BAD.length);
    for (const bad of BAD) expect(lines.filter((line) => bad.reason.test(line))).toHaveLength(1);
    expect(r.err).toContain('grag: indexing 4 documents from 3 files (5 skipped) with bm25');
    expect(r.err).toMatch(
      /^grag: 4 files skipped \((?=.*damaged PDF 1)(?=.*empty file 1)(?=.*not a DOCX).*\) and 1 record skipped \(N fields where the header has N 1\); each is named above$/m,
    );
    expect(await indexedIds(outOf('all'))).toEqual([
      'crew.csv#row2',
      'crew.csv#row4',
      'ferry.txt',
      'harbour.md',
    ]);

    // add reads the same way and reports the same, in --json too.
    const more = await folder('more', {
      'bergen.md': '# Bergen\n\nBergen is a harbour city in Norway.\n',
      ...Object.fromEntries(BAD.map((b) => [b.name, b.content])),
    });
    const add = await cli(['add', outOf('all'), more, '--json'], root);
    expectBuilt(add);
    const summary = JSON.parse(add.out) as {
      report: { documents: { added: string[]; replaced: string[] } };
      skipped: { path: string; reason: string; kind: string }[];
      skippedCounts: { files: number; records: number };
    };
    expect(summary.report.documents.added).toEqual(['bergen.md']);
    expect(summary.skippedCounts).toMatchObject({ files: 4, records: 1 });
    expect(summary.skipped.map((s) => s.kind).sort()).toEqual(['file', 'file', 'file', 'file', 'record']);
    expect(add.err.split('\n').filter((line) => line.startsWith('grag: skipped '))).toHaveLength(BAD.length);
  });
});
