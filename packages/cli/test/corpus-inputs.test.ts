/**
 * What `grag index` and `grag add` read: several paths, folders, globs, `--include` / `--exclude`,
 * a `.gragignore`, your own loaders (in code and named in the config file), record fields, the
 * progress line of a slow file, and the extracted text an estimate counts.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { InputError, type Loader } from '@grag/core';
import { getTokenizer } from '@grag/core/kit';
import { describe, expect, it } from 'vitest';
import { countSkipped, formatSkipped, reasonKind } from '../src/build-report.js';
import { readCorpus } from '../src/corpus.js';
import { createFileProgress, createProgressView } from '../src/progress.js';
import { runGrag } from './helpers.js';

async function tree(entries: Record<string, string | Uint8Array>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'grag-inputs-'));
  for (const [name, content] of Object.entries(entries)) {
    await mkdir(dirname(join(root, name)), { recursive: true });
    await writeFile(join(root, name), content);
  }
  return root;
}

const note = (topic: string) => `# ${topic}\n\nA note about the ${topic.toLowerCase()} of Port Halvard.\n`;

/** A loader of `.rtf` files that keeps the text between braces' control words (enough for a test). */
const rtfLoader: Loader = {
  name: 'rtf',
  extensions: ['.rtf'],
  async load(input) {
    const raw = new TextDecoder().decode(input.bytes);
    if (!raw.startsWith('{\\rtf')) throw new InputError(input.path, `${input.path}: not an RTF file`);
    const text = raw.replace(/\\[a-z]+\d* ?|[{}]/g, '').trim();
    return {
      documents: [
        { id: input.path, text, segments: [{ start: 0, end: text.length, location: { path: input.path } }] },
      ],
      skipped: [],
    };
  },
};

/** The ids of the documents a bm25 index holds. */
async function indexedIds(out: string): Promise<string[]> {
  const chunks = JSON.parse(await readFile(join(out, 'chunks.json'), 'utf8')) as { documents: string[] };
  return [...chunks.documents].sort();
}

describe('readCorpus: paths, folders and globs', () => {
  it('reads several paths at once: a folder by relative path, a file by its name, a glob from its base', async () => {
    const root = await tree({
      'notes/harbour.md': note('Harbour'),
      'notes/deep/ferry.md': note('Ferry'),
      'single.txt': 'A single text file about the lighthouse.',
      'reports/a.md': note('Shipyard'),
      'reports/b.txt': 'Not matched by the glob.',
    });
    const corpus = await readCorpus([join(root, 'notes'), join(root, 'single.txt'), `${root}/reports/*.md`]);
    expect(corpus.documents.map((d) => d.id)).toEqual(['deep/ferry.md', 'harbour.md', 'single.txt', 'a.md']);
    expect(corpus.files).toBe(4);
    expect(corpus.skipped).toEqual([]);
  });

  it('refuses a glob that matches nothing, and an id that two paths both give', async () => {
    const root = await tree({ 'a/x.md': note('Harbour'), 'b/x.md': note('Ferry') });
    await expect(readCorpus(`${root}/a/*.pdf`)).rejects.toThrowError(/No file matches .*\*\.pdf/);
    // A glob whose files are all left out matched: the corpus is empty, and says why.
    await expect(readCorpus(`${root}/a/*.md`, { exclude: ['x.md'] })).rejects.toThrowError(
      /no usable documents \(1 left out by \.gragignore, --include or --exclude\)/,
    );
    await expect(readCorpus([])).rejects.toThrowError(/no path given/);
    await expect(readCorpus([join(root, 'a'), join(root, 'b')])).rejects.toThrowError(
      /The document id "x\.md" comes from both .*a and .*b/,
    );
  });

  it('leaves out what --exclude, --include and .gragignore say, and counts it', async () => {
    const root = await tree({
      '.gragignore': 'drafts/\n*.log.md\n',
      'keep.md': note('Harbour'),
      'skip.log.md': note('Log'),
      'drafts/wip.md': note('Draft'),
      'archive/old.md': note('Archive'),
      'archive/old.txt': 'An old text.',
      'data/table.txt': 'Table text.',
    });
    const all = await readCorpus(root);
    expect(all.documents.map((d) => d.id)).toEqual([
      'archive/old.md',
      'archive/old.txt',
      'data/table.txt',
      'keep.md',
    ]);
    expect(all.excluded).toBe(2);
    // .gragignore is the corpus's own: not reported as a hidden file.
    expect(all.skipped).toEqual([]);
    const some = await readCorpus(root, { exclude: ['archive'], include: ['*.md', 'data/**'] });
    expect(some.documents.map((d) => d.id)).toEqual(['data/table.txt', 'keep.md']);
    const raw = await readCorpus(root, { ignoreFile: false });
    expect(raw.documents.map((d) => d.id)).toContain('drafts/wip.md');
    expect(raw.skipped).toEqual([
      { path: join(root, '.gragignore'), reason: 'hidden (not read)', kind: 'file' },
    ]);
  });

  it('names the supported extensions for a file no loader takes (.markdown among them)', async () => {
    const root = await tree({ 'a.markdown': note('Harbour'), 'photo.png': 'png?' });
    const corpus = await readCorpus(root);
    expect(corpus.documents.map((d) => d.id)).toEqual(['a.markdown']);
    expect(corpus.skipped).toHaveLength(1);
    expect(corpus.skipped[0]?.reason).toMatch(
      /^unsupported file type "\.png" \(supported: .*\.markdown, .*\.md\b/,
    );
    expect(corpus.skipped[0]?.reason).not.toMatch(/not a \.txt, \.md or \.jsonl file/);
  });
});

describe('readCorpus: your own loaders', () => {
  it('reads an extension no built-in loader takes, and goes first for one that a built-in takes', async () => {
    const root = await tree({
      'memo.rtf': '{\\rtf1\\ansi {\\b Memo} The ferry leaves at noon.}',
      'broken.rtf': 'plain text with an .rtf name',
      'note.txt': 'Plain text.',
    });
    const corpus = await readCorpus(root, { loaders: [rtfLoader] });
    expect(corpus.documents.map((d) => [d.id, d.text])).toEqual([
      ['memo.rtf', 'Memo The ferry leaves at noon.'],
      ['note.txt', 'Plain text.'],
    ]);
    expect(corpus.skipped).toEqual([
      { path: join(root, 'broken.rtf'), reason: 'not an RTF file', kind: 'file' },
    ]);

    const upper: Loader = {
      name: 'upper',
      extensions: ['.txt'],
      async load(input) {
        const text = new TextDecoder().decode(input.bytes).toUpperCase();
        return { documents: [{ id: input.path, text }], skipped: [] };
      },
    };
    const mine = await readCorpus(join(root, 'note.txt'), { loaders: [upper] });
    expect(mine.documents[0]?.text).toBe('PLAIN TEXT.');
  });

  it('skips a file whose loader fails or hangs past the time limit, with one reason each', async () => {
    const root = await tree({ 'a.bug': 'x', 'b.slow': 'y', 'c.txt': 'Good text.' });
    const buggy: Loader = {
      name: 'buggy',
      extensions: ['.bug'],
      async load() {
        throw new TypeError("Cannot read properties of undefined (reading 'pages')");
      },
    };
    const hanging: Loader = { name: 'hanging', extensions: ['.slow'], load: () => new Promise(() => {}) };
    const started = performance.now();
    const corpus = await readCorpus(root, { loaders: [buggy, hanging], limits: { timeoutMs: 300 } });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(corpus.documents.map((d) => d.id)).toEqual(['c.txt']);
    expect(corpus.skipped.map((s) => [s.path, s.kind])).toEqual([
      [join(root, 'a.bug'), 'file'],
      [join(root, 'b.slow'), 'file'],
    ]);
    expect(corpus.skipped[0]?.reason).toMatch(/buggy.*Cannot read properties of undefined/);
    expect(corpus.skipped[1]?.reason).toMatch(/time|took longer|0\.3 s|300 ms/i);
  });
});

describe('grag index and add: several inputs, filters, fields, loaders from the config', () => {
  it('indexes a folder, a file and a glob in one command, minus what --exclude leaves out', async () => {
    const root = await tree({
      'notes/harbour.md': note('Harbour'),
      'notes/private/diary.md': note('Diary'),
      'extra.txt': 'The lighthouse keeper rows to the island.',
      'reports/q1.md': note('Shipyard'),
    });
    const out = join(root, '..', `${root.split('/').pop()}-idx`);
    const r = await runGrag(root, [
      'index',
      'notes',
      'extra.txt',
      'reports/*.md',
      '--exclude',
      'private',
      '--method',
      'bm25',
      '--out',
      out,
    ]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(
      'grag: indexing 3 documents from 3 files (1 left out by .gragignore, --include or --exclude) with bm25',
    );
    expect(await indexedIds(out)).toEqual(['extra.txt', 'harbour.md', 'q1.md']);

    // add takes globs and filters too; an id already indexed is replaced.
    await writeFile(join(root, 'reports', 'q2.md'), note('Ferry'));
    const add = await runGrag(root, ['add', out, 'reports/*.md', '--include', 'q2*', '--json']);
    expect(add.code, add.err).toBe(0);
    expect(JSON.parse(add.out).report.documents.added).toEqual(['q2.md']);
  });

  it('refuses --include and the field options on a command that reads no files', async () => {
    const r = await runGrag(tmpdir(), ['query', 'idx', 'question', '--include', '*.md']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--include is an option of index, add and eval/);
  });

  it('reads the record fields --text-field, --title-field and --id-field name (also from the config file)', async () => {
    const root = await tree({
      'corpus/people.jsonl': [
        JSON.stringify({ key: 'ada', name: 'Ada Lovelace', body: 'Ada Lovelace wrote the first program.' }),
        JSON.stringify({ key: 'alan', name: 'Alan Turing', body: 'Alan Turing broke the Enigma cipher.' }),
      ].join('\n'),
    });
    const out = join(root, 'idx');
    const r = await runGrag(root, [
      'index',
      'corpus',
      '--text-field',
      'body',
      '--title-field',
      'name',
      '--id-field',
      'key',
      '--method',
      'bm25',
      '--out',
      out,
      '-q',
    ]);
    expect(r.code, r.err).toBe(0);
    expect(await indexedIds(out)).toEqual(['ada', 'alan']);

    await writeFile(join(root, 'grag.config.json'), JSON.stringify({ textField: 'body', idField: 'key' }));
    const c = await runGrag(root, ['index', 'corpus', '--method', 'bm25', '--out', join(root, 'idx2'), '-q']);
    expect(c.code, c.err).toBe(0);
    expect(await indexedIds(join(root, 'idx2'))).toEqual(['ada', 'alan']);
  });

  it('uses the loaders a config file names, and says which module is wrong', async () => {
    const root = await tree({
      'corpus/memo.rtf': '{\\rtf1\\ansi {\\b Memo} The ferry leaves at noon.}',
      'corpus/note.md': note('Harbour'),
      'loaders/rtf.mjs': `export default {
  name: 'rtf',
  extensions: ['.RTF'],
  async load(input) {
    const text = new TextDecoder().decode(input.bytes).replace(/\\\\[a-z]+\\d* ?|[{}]/g, '').trim();
    return { documents: [{ id: input.path, text }], skipped: [] };
  },
};
`,
      'loaders/none.mjs': 'export const answer = 42;\n',
    });
    await writeFile(join(root, 'grag.config.json'), JSON.stringify({ loaders: ['./loaders/rtf.mjs'] }));
    const out = join(root, 'idx');
    const r = await runGrag(root, ['index', 'corpus', '--method', 'bm25', '--out', out, '-q']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    expect(await indexedIds(out)).toEqual(['memo.rtf', 'note.md']);

    await writeFile(join(root, 'grag.config.json'), JSON.stringify({ loaders: ['./loaders/none.mjs'] }));
    const bad = await runGrag(root, ['index', 'corpus', '--method', 'bm25', '--out', join(root, 'idx2')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^grag: The loader module .*none\.mjs exports no loader/);
    await writeFile(join(root, 'grag.config.json'), JSON.stringify({ loaders: './loaders/missing.mjs' }));
    const missing = await runGrag(root, ['index', 'corpus', '--method', 'bm25', '--out', join(root, 'idx2')]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^grag: Cannot load the loader module .*missing\.mjs named in the config/);
  });

  it('prints one line for a file that is slow to load, none for fast ones', async () => {
    const root = await tree({
      'corpus/slow.wait': 'x',
      'corpus/fast.md': note('Harbour'),
      'loaders/wait.mjs': `export const wait = {
  name: 'wait',
  extensions: ['.wait'],
  load: (input) => new Promise((done) => setTimeout(() => done({ documents: [{ id: input.path, text: 'Waited text.' }], skipped: [] }), 2400)),
};
`,
    });
    await writeFile(join(root, 'grag.config.json'), JSON.stringify({ loaders: ['./loaders/wait.mjs'] }));
    const r = await runGrag(root, ['index', 'corpus', '--method', 'bm25', '--out', join(root, 'idx')]);
    expect(r.code, r.err).toBe(0);
    const reading = r.err.split('\n').filter((line) => line.startsWith('grag: reading '));
    expect(reading).toEqual([`grag: reading ${join('corpus', 'slow.wait')} (file 2 of 2, 1 B)…`]);
  });

  it('--estimate counts the tokens of the text the loaders extracted', async () => {
    const root = await tree({
      'corpus/a.md': note('Harbour'),
      'corpus/b.jsonl': `${JSON.stringify({ id: 'r1', text: 'The ferry crosses the strait.' })}\n{bad\n`,
      'corpus/c.png': 'not an image',
    });
    const corpus = await readCorpus(join(root, 'corpus'));
    const tokenizer = getTokenizer();
    const tokens = corpus.documents.reduce((n, d) => n + tokenizer.count(d.text), 0);
    const r = await runGrag(root, ['index', 'corpus', '--method', 'bm25', '--estimate', '--json', '-q']);
    expect(r.code, r.err).toBe(0);
    const estimate = JSON.parse(r.out) as { input: Record<string, unknown> };
    expect(estimate.input).toMatchObject({ files: 2, documents: 2, tokens });
    expect(estimate.input.skipped).toMatchObject({ files: 1, records: 1 });
    const text = await runGrag(root, ['index', 'corpus', '--method', 'bm25', '--estimate', '-q']);
    expect(text.out).toContain(
      `input: ${tokens.toLocaleString('en-US')} tokens of text in 2 documents from 2 files (1 file and 1 record skipped)`,
    );
  });
});

describe('the build report of skipped inputs', () => {
  it('counts skipped files and records by the kind of reason', () => {
    expect(reasonKind('unsupported file type ".png" (supported: .md, .txt)')).toBe('unsupported file type');
    expect(reasonKind('duplicate id "a"')).toBe('duplicate id');
    expect(reasonKind('binary content (NUL bytes), not text')).toBe('binary content');
    expect(reasonKind('too large (120.0 MiB; the limit is 100 MiB)')).toBe('too large');
    const counts = countSkipped([
      { reason: 'empty file', kind: 'file' },
      { reason: 'empty file', kind: 'file' },
      { reason: 'damaged PDF (bad xref)', kind: 'file' },
      { reason: 'not valid JSON', kind: 'record' },
    ]);
    expect(counts).toEqual({
      files: 3,
      records: 1,
      filesByReason: { 'empty file': 2, 'damaged PDF': 1 },
      recordsByReason: { 'not valid JSON': 1 },
    });
    expect(formatSkipped(counts)).toBe(
      '3 files skipped (empty file 2, damaged PDF 1) and 1 record skipped (not valid JSON 1); each is named above',
    );
    expect(formatSkipped(countSkipped([]))).toBeUndefined();
  });
});

describe('the progress of reading files', () => {
  it('draws a bar of files on a terminal, and a line for a file that takes long', async () => {
    let written = '';
    const stream = {
      isTTY: true,
      write(text: string) {
        written += text;
        return true;
      },
    } as unknown as NodeJS.WriteStream;
    const view = createProgressView(stream, true);
    const files = createFileProgress(view, true, { slowMs: 50 });
    const file = (index: number) => ({ path: `docs/f${index}.pdf`, index, total: 2, bytes: 3 * 1024 * 1024 });
    files.onFile({ phase: 'start', ...file(1) });
    files.onFile({ phase: 'end', ...file(1) });
    files.onFile({ phase: 'start', ...file(2) });
    await new Promise((r) => setTimeout(r, 120));
    files.onFile({ phase: 'end', ...file(2) });
    files.stop();
    view.done();
    expect(written).toContain('read: [');
    expect(written).toContain('2/2 files (100%)');
    expect(written).toContain('grag: reading docs/f2.pdf (file 2 of 2, 3.0 MiB)…\n');
    expect(written).not.toContain('f1.pdf');
  });
});
