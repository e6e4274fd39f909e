/**
 * Corpus files in encodings other than UTF-8 are decoded by content, never with U+FFFD in place of
 * their accented letters, and a Latin-1 file full of accents is not mistaken for binary. Fixtures
 * are hand-made bytes; expected strings are written out literally.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeText } from '@grag/core/kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCorpus } from '../src/corpus.js';
import { run } from '../src/index.js';
import { captureIO } from './helpers.js';

const bytes = (...parts: (number[] | string)[]): Uint8Array =>
  Uint8Array.from(
    parts.flatMap((p) =>
      typeof p === 'string'
        ? [...p].map((c) => {
            const code = c.charCodeAt(0);
            if (code > 0x7f) throw new Error('fixture strings must be ASCII; give other bytes as numbers');
            return code;
          })
        : p,
    ),
  );

/** UTF-16 code units of an ASCII-or-BMP string, serialised by hand. */
const utf16 = (s: string, order: 'le' | 'be'): number[] =>
  [...s].flatMap((c) => {
    const u = c.charCodeAt(0);
    return order === 'le' ? [u & 0xff, u >> 8] : [u >> 8, u & 0xff];
  });

/** Deterministic pseudo-random bytes (LCG). */
function noise(n: number, seed = 7): number[] {
  const out: number[] = [];
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push((x >>> 16) & 0xff);
  }
  return out;
}

// "café crème" in Latin-1: é = 0xE9, è = 0xE8.
const LATIN1_CAFE = bytes('caf', [0xe9], ' cr', [0xe8], 'me');
// “Prix” – 5 € … in Windows-1252: 0x93 “, 0x94 ”, 0x96 –, 0x80 €, 0x85 …
const CP1252_PRICE = bytes([0x93], 'Prix', [0x94], ' ', [0x96], ' 5 ', [0x80], ' ', [0x85]);
const PNG = bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d], 'IHDR', noise(600));
// Many accented Latin-1 bytes: "àéèêëîïôöùûüç " repeated (old rule: > 2% invalid UTF-8 → binary).
const ACCENTS = [0xe0, 0xe9, 0xe8, 0xea, 0xeb, 0xee, 0xef, 0xf4, 0xf6, 0xf9, 0xfb, 0xfc, 0xe7, 0x20];
const ACCENTS_TEXT = 'àéèêëîïôöùûüç ';

describe('decodeText', () => {
  it('decodes Latin-1 exactly and names it', () => {
    expect(decodeText(LATIN1_CAFE)).toEqual({
      text: 'café crème',
      encoding: 'latin1',
      bom: false,
      reason: 'not valid UTF-8',
    });
  });

  it('decodes Windows-1252 curly quotes, dash, euro sign and ellipsis', () => {
    const r = decodeText(CP1252_PRICE);
    expect(r).toMatchObject({ text: '“Prix” – 5 € …', encoding: 'windows-1252' });
  });

  it('decodes UTF-16 LE and BE with a byte-order mark, without the mark', () => {
    const s = 'Zoë – 日本\r\n';
    const le = decodeText(bytes([0xff, 0xfe], utf16(s, 'le')));
    const be = decodeText(bytes([0xfe, 0xff], utf16(s, 'be')));
    expect(le).toEqual({ text: s, encoding: 'utf-16le', bom: true, reason: 'byte-order mark' });
    expect(be).toEqual({ text: s, encoding: 'utf-16be', bom: true, reason: 'byte-order mark' });
  });

  it('recognises BOM-less UTF-16 by its NUL pattern', () => {
    const s = 'Plain words, Zoë and Chloé.\n';
    expect(decodeText(bytes(utf16(s, 'le')))).toMatchObject({ text: s, encoding: 'utf-16le', bom: false });
    expect(decodeText(bytes(utf16(s, 'be')))).toMatchObject({ text: s, encoding: 'utf-16be', bom: false });
  });

  it('strips a UTF-8 byte-order mark and keeps UTF-8 and ASCII as they are', () => {
    expect(decodeText(bytes([0xef, 0xbb, 0xbf], 'Hi ', [0xc3, 0xa9]))).toEqual({
      text: 'Hi é',
      encoding: 'utf-8',
      bom: true,
      reason: 'byte-order mark',
    });
    expect(decodeText(bytes('plain ascii\r\n'))).toMatchObject({
      text: 'plain ascii\r\n',
      encoding: 'utf-8',
    });
    expect(decodeText(new Uint8Array())).toMatchObject({ text: '', encoding: 'utf-8' });
  });

  it('takes a Latin-1 file full of accents for text, not binary', () => {
    const r = decodeText(bytes(...Array.from({ length: 100 }, () => ACCENTS)));
    expect(r).toMatchObject({ text: ACCENTS_TEXT.repeat(100), encoding: 'latin1' });
  });

  it('calls binary what is binary', () => {
    expect(decodeText(PNG)).toEqual({ binary: true, reason: 'NUL bytes' });
    // Random bytes without any NUL: invalid UTF-8, and full of control characters as Windows-1252.
    const noNul = noise(600, 3).map((b) => b || 1);
    expect(decodeText(bytes(noNul))).toEqual({ binary: true, reason: 'control characters' });
    // A UTF-16 byte-order mark on an unpaired surrogate.
    expect(decodeText(bytes([0xff, 0xfe, 0x00, 0xd8, 0x41, 0x00]))).toMatchObject({ binary: true });
    // NULs in both byte positions: not UTF-16.
    expect(decodeText(bytes('ab', [0, 0], 'cd', [0, 1, 0, 2]))).toMatchObject({ binary: true });
  });
});

describe('readCorpus encodings', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'grag-enc-'));
    const files: Record<string, Uint8Array> = {
      'cafe.txt': LATIN1_CAFE,
      'price.txt': CP1252_PRICE,
      'accents.txt': bytes(...Array.from({ length: 100 }, () => ACCENTS)),
      // CRLF + Latin-1 heading: "# Crème brûlée\r\n\r\nDessert à la française.\r\n"
      'creme.md': bytes(
        '# Cr',
        [0xe8],
        'me br',
        [0xfb],
        'l',
        [0xe9],
        'e\r\n\r\nDessert ',
        [0xe0],
        ' la fran',
        [0xe7],
        'aise.\r\n',
      ),
      'le.md': bytes([0xff, 0xfe], utf16('# Größe\r\n\r\nÜber alles.\r\n', 'le')),
      'be.txt': bytes([0xfe, 0xff], utf16('Ωmega\r\n', 'be')),
      'bom.md': bytes([0xef, 0xbb, 0xbf], '# Caf', [0xc3, 0xa9], '\r\n\r\nUTF-8 with a mark.\r\n'),
      'ascii.txt': bytes('Just ASCII.\r\n'),
      'utf8.txt': bytes('Na', [0xc3, 0xaf], 've r', [0xc3, 0xa9], 'sum', [0xc3, 0xa9]),
      'image.txt': PNG,
      // CRLF JSONL in Windows-1252: {"id":"q","title":"Qu’il","text":"“yes”"}
      'records.jsonl': bytes(
        '{"id":"q","title":"Qu',
        [0x92],
        'il","text":"',
        [0x93],
        'yes',
        [0x94],
        '"}\r\n{"id":"r","text":"plain"}\r\n',
      ),
    };
    for (const [name, data] of Object.entries(files)) await writeFile(join(dir, name), data);
  });

  it('decodes every text file exactly and skips only the binary one', async () => {
    const corpus = await readCorpus(dir);
    const byId = Object.fromEntries(corpus.documents.map((d) => [d.id, d]));
    expect(byId['cafe.txt']?.text).toBe('café crème');
    expect(byId['price.txt']?.text).toBe('“Prix” – 5 € …');
    expect(byId['accents.txt']?.text).toBe(ACCENTS_TEXT.repeat(100));
    // Markdown is read as text without its markup (the heading is the title and the section).
    expect(byId['creme.md']).toMatchObject({
      title: 'Crème brûlée',
      text: 'Crème brûlée\n\nDessert à la française.',
    });
    expect(byId['le.md']).toMatchObject({ title: 'Größe', text: 'Größe\n\nÜber alles.' });
    expect(byId['be.txt']?.text).toBe('Ωmega\r\n');
    expect(byId['bom.md']).toMatchObject({ title: 'Café', text: 'Café\n\nUTF-8 with a mark.' });
    expect(byId['ascii.txt']?.text).toBe('Just ASCII.\r\n');
    expect(byId['utf8.txt']?.text).toBe('Naïve résumé');
    expect(byId.q).toMatchObject({ id: 'q', title: 'Qu’il', text: '“yes”' });
    expect(byId.r).toMatchObject({ id: 'r', text: 'plain' });
    for (const d of corpus.documents) expect(d.text).not.toContain('\uFFFD');
    expect(corpus.skipped).toEqual([
      { path: join(dir, 'image.txt'), reason: expect.stringMatching(/^binary content/), kind: 'file' },
    ]);
    expect(corpus.files).toBe(10);
  });

  it('reports each file not read as UTF-8, and only those', async () => {
    const corpus = await readCorpus(dir);
    const encodings = Object.fromEntries(
      corpus.decoded.map((d) => [d.path.slice(dir.length + 1), d.encoding]),
    );
    expect(encodings).toEqual({
      'accents.txt': 'latin1',
      'be.txt': 'utf-16be',
      'cafe.txt': 'latin1',
      'creme.md': 'latin1',
      'le.md': 'utf-16le',
      'price.txt': 'windows-1252',
      'records.jsonl': 'windows-1252',
    });
  });

  it('grag index says which encoding it assumed, one line per file', async () => {
    const io = captureIO(dir);
    const out = await mkdtemp(join(tmpdir(), 'grag-enc-idx-'));
    expect(await run(['index', dir, '--method', 'bm25', '--out', join(out, 'idx')], io)).toBe(0);
    const err = io.err();
    expect(err).toContain(`grag: read ${join(dir, 'cafe.txt')} as latin1 (not valid UTF-8)\n`);
    expect(err).toContain(`grag: read ${join(dir, 'price.txt')} as windows-1252 (not valid UTF-8)\n`);
    expect(err).toContain(`grag: read ${join(dir, 'le.md')} as utf-16le (byte-order mark)\n`);
    expect(err).toMatch(/skipped .*image\.txt: binary content/);
    expect(err.match(/^grag: read /gm)).toHaveLength(7);
    expect(err).not.toMatch(/read .*(ascii|utf8|bom)\.(txt|md)/);
  });
});
