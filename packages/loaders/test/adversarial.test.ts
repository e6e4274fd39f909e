import { InputError, type LoaderOptions } from '@grag/core';
import { zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFile } from '../src/index.js';
import { childPids, peakWhile, resident, residentTree, utf8 } from './helpers.js';
import {
  makeDamagedPdf,
  makeDocx,
  makeEncryptedPdf,
  makeImageOnlyPdf,
  makeLyingZip,
  makePdf,
  makePdfBomb,
  makeZipBomb,
} from './make.js';

const MiB = 1024 * 1024;

/** Loads `bytes` as `path` and returns the one-line InputError message it must fail with. */
async function refusal(path: string, bytes: Uint8Array | Promise<Uint8Array>, options: LoaderOptions = {}) {
  const started = performance.now();
  const error = await loadFile({ path, bytes: await bytes }, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  const ms = performance.now() - started;
  expect(InputError.isInstance(error), `expected an InputError, got ${String(error)}`).toBe(true);
  const e = error as InputError;
  expect(e.path).toBe(path);
  expect(e.message.startsWith(`${path}: `)).toBe(true);
  expect(e.message).not.toContain('\n');
  expect(ms).toBeLessThan(10_000);
  return e.message;
}

const png = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);
const ole = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, ...new Array(504).fill(0)]);

describe('adversarial PDFs', () => {
  /** 512 MiB of content stream in 0.5 MiB of file. */
  let bomb: Uint8Array;
  beforeAll(() => {
    bomb = makePdfBomb(512 * MiB);
  });

  it('refuses a .pdf that is a ZIP archive', async () => {
    expect(await refusal('x.pdf', makeZipBomb(10))).toBe('x.pdf: the content is a ZIP archive, not a PDF');
  });
  it('refuses a .pdf without a PDF header', async () => {
    expect(await refusal('x.pdf', utf8('just some text'))).toBe(
      'x.pdf: not a PDF (no %PDF- header in the first 1 KiB)',
    );
  });
  it('refuses a damaged PDF', async () => {
    expect(await refusal('broken.pdf', makeDamagedPdf())).toMatch(/^broken\.pdf: damaged PDF \(.+\)$/);
  });
  it('refuses a truncated PDF', async () => {
    const whole = await makePdf([['Some text.'], ['More text.']]);
    expect(await refusal('cut.pdf', whole.subarray(0, 400))).toMatch(/^cut\.pdf: damaged PDF/);
  });
  it('refuses an encrypted PDF', async () => {
    expect(await refusal('sealed.pdf', makeEncryptedPdf())).toBe(
      'sealed.pdf: encrypted PDF (it needs a password); save an unencrypted copy first',
    );
  });
  it('refuses a PDF with no text layer', async () => {
    expect(await refusal('scan.pdf', makeImageOnlyPdf())).toContain('no text layer; OCR is not supported');
  });
  it('refuses a PDF of more pages than limits.maxPages', async () => {
    const bytes = makePdf([['one'], ['two'], ['three']]);
    expect(await refusal('long.pdf', bytes, { limits: { maxPages: 2 } })).toBe(
      'long.pdf: 3 pages, more than limits.maxPages (2); raise the limit or split the file',
    );
  });
  it('stops a decompression bomb at limits.maxMemoryBytes', async () => {
    expect(await refusal('bomb.pdf', bomb, { limits: { maxMemoryBytes: 128 * MiB } })).toBe(
      'bomb.pdf: needs more than 128 MiB of memory to parse (limits.maxMemoryBytes); raise the limit or split the file',
    );
  });
  it('stops a parse that runs past limits.timeoutMs, and the next file loads', async () => {
    expect(await refusal('slow.pdf', bomb, { limits: { timeoutMs: 300 } })).toBe(
      'slow.pdf: took longer than 300 ms (limits.timeoutMs); raise the limit or split the file',
    );
    const { documents } = await loadFile({ path: 'ok.pdf', bytes: await makePdf([['After the time-out.']]) });
    expect(documents[0]!.text).toBe('After the time-out.');
  });
});

// Memory as the system sees it (resident, from /proc): Linux only.
describe.runIf(process.platform === 'linux')('memory of stopped and concurrent parses', () => {
  it("gives a stopped parse's memory back: four bombs in a row peak where one did", async () => {
    const bomb = makePdfBomb(256 * MiB);
    const peaks: number[] = [];
    for (let i = 1; i <= 4; i++) {
      const { outcome, peak } = await peakWhile(
        () => residentTree(process.pid),
        () => loadFile({ path: `bomb-${i}.pdf`, bytes: bomb }, { limits: { maxMemoryBytes: 128 * MiB } }),
      );
      expect((outcome as Error).message).toMatch(/needs more than 128 MiB of memory/);
      peaks.push(peak);
    }
    // Worker threads kept what each bomb's thread had taken (its malloc arena): about 0.5 GB per
    // bomb at the default limit.
    expect(Math.max(...peaks.slice(1)), peaks.map((p) => (p / MiB).toFixed(0)).join(', ')).toBeLessThan(
      peaks[0]! + 64 * MiB,
    );
  });

  it('keeps the worker processes within one budget together, and reads each file that fits alone', async () => {
    // Each takes about 300 MiB more than a worker at rest: one fits in the 512 MiB each is given,
    // two at once would not.
    const bomb = makePdfBomb(112 * MiB);
    const limits = { maxMemoryBytes: 512 * MiB };
    const { outcome, peak } = await peakWhile(
      () => childPids(process.pid).reduce((sum, pid) => sum + resident(pid), 0),
      () => Promise.all([1, 2, 3].map((i) => loadFile({ path: `big-${i}.pdf`, bytes: bomb }, { limits }))),
    );
    if (outcome instanceof Error) throw outcome;
    for (const { documents } of outcome) expect(documents[0]!.text).toBe('bomb');
    // The child processes of this one (the workers, and tsx's esbuild when run from sources),
    // sampled every 5 ms. The pool checks every 20 ms, and a killed child takes a moment to go; on
    // a loaded machine the check comes late, so the bound asserted is the 1 GB (three
    // parses at once without the shared budget take about 1.2 GB), not the budget itself.
    expect(peak / MiB).toBeGreaterThan(300);
    expect(peak / MiB).toBeLessThan(1024);
  });
});

describe('adversarial Word files', () => {
  it('refuses a .docx that is not a ZIP archive', async () => {
    expect(await refusal('notes.docx', utf8('plain text'))).toBe(
      'notes.docx: not a DOCX (Word) file (the content is not a ZIP archive)',
    );
    expect(await refusal('paper.docx', makePdf([['x']]))).toBe(
      'paper.docx: the content is a PDF, not a DOCX (Word) file',
    );
  });
  it('refuses an encrypted or legacy Word file (OLE2)', async () => {
    expect(await refusal('old.docx', ole)).toMatch(
      /^old\.docx: the content is an OLE2 compound file, not a DOCX: an encrypted Word document/,
    );
  });
  it('refuses a ZIP bomb by its declared size before inflating it', async () => {
    expect(
      await refusal('bomb.docx', makeZipBomb(64 * MiB), { limits: { maxExpandedBytes: 16 * MiB } }),
    ).toBe('bomb.docx: expands to 64 MiB, more than limits.maxExpandedBytes (16 MiB); a ZIP bomb?');
  });
  it('refuses a ZIP whose entry inflates past its declared size', async () => {
    expect(await refusal('liar.docx', makeLyingZip(64 * MiB))).toBe(
      'liar.docx: the ZIP entry word/document.xml expands past its declared size (1 KiB); a ZIP bomb?',
    );
  });
  it('refuses a ZIP archive that is no Word document', async () => {
    const zip = zipSync({ 'readme.txt': utf8('hello') });
    expect(await refusal('archive.docx', zip)).toBe(
      'archive.docx: not a Word document (a ZIP archive without word/document.xml)',
    );
  });
  it('refuses a truncated DOCX', async () => {
    const whole = await makeDocx([{ paragraph: 'Some text in a Word file.' }]);
    expect(await refusal('cut.docx', whole.subarray(0, 2000))).toMatch(/^cut\.docx: damaged /);
  });
});

describe('adversarial text files', () => {
  it('refuses a .json that is binary, naming what it is', async () => {
    expect(await refusal('data.json', png)).toBe('data.json: the content is a PNG image, not JSON text');
    const noise = new Uint8Array(256).map((_, i) => (i * 37) % 256);
    expect(await refusal('noise.json', noise)).toMatch(/^noise\.json: binary content/);
  });
  it('refuses invalid JSON and JSON that is no record', async () => {
    expect(await refusal('bad.json', utf8('{"a": '))).toMatch(/^bad\.json: not valid JSON \(/);
    expect(await refusal('deep.json', utf8('['.repeat(200_000)))).toMatch(/^deep\.json: not valid JSON/);
    expect(await refusal('n.json', utf8('42'))).toBe('n.json: not a JSON record or array of records');
  });
  it('refuses a CSV of more records than limits.maxRecords', async () => {
    const csv = `a,b\n${Array.from({ length: 50 }, (_, i) => `${i},x`).join('\n')}\n`;
    expect(await refusal('big.csv', utf8(csv), { limits: { maxRecords: 10 } })).toBe(
      'big.csv: more than limits.maxRecords (10) records; raise the limit or split the file',
    );
  });
  it('refuses an HTML page with no main content', async () => {
    const page =
      '<html><body><nav><a href="/">Home</a> <a href="/a">About</a></nav><footer>Copyright</footer></body></html>';
    expect(await refusal('empty.html', utf8(page))).toMatch(/^empty\.html: no main content/);
  });
  it('refuses an empty file and a file over limits.maxBytes', async () => {
    expect(await refusal('blank.md', utf8('  \n'))).toBe('blank.md: empty file');
    expect(await refusal('big.md', utf8('x'.repeat(2048)), { limits: { maxBytes: 1024 } })).toBe(
      'big.md: 2 KiB, more than limits.maxBytes (1 KiB); raise the limit or split the file',
    );
  });
  it('reads or refuses pathologically nested Markdown and HTML in bounded time', async () => {
    for (const [path, text] of [
      ['quotes.md', `${'>'.repeat(50_000)} deep`],
      ['stars.md', `${'*a '.repeat(50_000)}`],
      ['links.md', `${'['.repeat(50_000)}x`],
      ['lists.md', `${'- '.repeat(50_000)}deep`],
      ['divs.html', `<html><body>${'<div>'.repeat(50_000)}<p>Deep text in a paragraph.</p></body></html>`],
    ] as const) {
      const started = performance.now();
      const outcome = await loadFile({ path, bytes: utf8(text) }).then(
        (r) => r.documents.length,
        (e: unknown) => (InputError.isInstance(e) && !e.message.includes('\n') ? 'refused' : e),
      );
      expect([1, 'refused']).toContain(outcome);
      expect(performance.now() - started).toBeLessThan(10_000);
    }
  });
  it('stops Markdown whose emphasis takes the parser quadratic time at limits.timeoutMs', async () => {
    const text = `${'*'.repeat(50_000)}a${'*'.repeat(50_000)}`;
    expect(await refusal('stars.md', utf8(text), { limits: { timeoutMs: 1500 } })).toBe(
      'stars.md: took longer than 1.5 s (limits.timeoutMs); raise the limit or split the file',
    );
  });
});
