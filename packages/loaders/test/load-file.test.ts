import { InputError, InvalidArgumentError, type Loader } from '@grag/core';
import { textLoader } from '@grag/core/kit';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LOADER_LIMITS,
  defaultLoaders,
  findLoader,
  loadFile,
  markdownLoader,
  pdfLoader,
} from '../src/index.js';
import { utf8 } from './helpers.js';
import { makePdf, makePdfBomb } from './make.js';

const upper: Loader = {
  name: 'upper',
  extensions: ['.up', '.md'],
  async load(input) {
    const text = new TextDecoder().decode(input.bytes).toUpperCase();
    return {
      documents: [
        { id: input.path, text, segments: [{ start: 0, end: text.length, location: { path: input.path } }] },
      ],
      skipped: [],
    };
  },
};

describe('loadFile', () => {
  it('picks the loader by extension, case-insensitively, and core text files too', async () => {
    expect(findLoader('a/b/Report.PDF')).toBe(pdfLoader);
    expect(findLoader('notes.markdown')).toBe(markdownLoader);
    expect(findLoader('readme.txt')).toBe(textLoader);
    expect(findLoader('archive.tar.gz')).toBeUndefined();
    expect(findLoader('.md')).toBeUndefined();
    const { documents } = await loadFile({ path: 'dir/READ.TXT', bytes: utf8('Plain words.') });
    expect(documents).toEqual([
      {
        id: 'dir/READ.TXT',
        title: 'READ',
        text: 'Plain words.',
        segments: [{ start: 0, end: 12, location: { path: 'dir/READ.TXT' } }],
      },
    ]);
  });

  it('tries user loaders first: a new extension, or one that overrides a default', async () => {
    expect(
      (await loadFile({ path: 'x.up', bytes: utf8('shout') }, { loaders: [upper] })).documents[0]!.text,
    ).toBe('SHOUT');
    expect(
      (await loadFile({ path: 'x.md', bytes: utf8('# quiet') }, { loaders: [upper] })).documents[0]!.text,
    ).toBe('# QUIET');
    expect((await loadFile({ path: 'x.md', bytes: utf8('# quiet') })).documents[0]!.text).toBe('quiet');
  });

  it('refuses an extension no loader takes, in one line that lists what is read', async () => {
    const error = await loadFile({ path: 'deck/slides.pptx', bytes: utf8('x') }).catch((e: unknown) => e);
    expect(InputError.isInstance(error)).toBe(true);
    expect((error as InputError).message).toBe(
      'deck/slides.pptx: no loader for .pptx files; the loaders read .md .markdown .mdx .html .htm .pdf .docx .csv .tsv .json .jsonl .txt .text (pass { loaders: [yourLoader] } to loadFile for others)',
    );
    const bare = await loadFile({ path: 'Makefile', bytes: utf8('x') }).catch((e: InputError) => e.message);
    expect(bare).toMatch(/^Makefile: no loader for files without an extension; /);
  });

  it('refuses a file over limits.maxBytes before any loader sees it', async () => {
    let called = false;
    const spy: Loader = {
      ...upper,
      extensions: ['.up'],
      load: async (i, o) => {
        called = true;
        return upper.load(i, o);
      },
    };
    const error = await loadFile(
      { path: 'big.up', bytes: new Uint8Array(3000) },
      { loaders: [spy], limits: { maxBytes: 1000 } },
    ).catch((e: unknown) => e);
    expect((error as InputError).message).toBe(
      'big.up: 2.9 KiB, more than limits.maxBytes (1000 B); raise the limit or split the file',
    );
    expect(called).toBe(false);
  });

  it("rejects a custom loader's load at limits.timeoutMs", async () => {
    const stuck: Loader = { name: 'stuck', extensions: ['.wait'], load: () => new Promise(() => {}) };
    const started = performance.now();
    const error = await loadFile(
      { path: 'a.wait', bytes: utf8('x') },
      { loaders: [stuck], limits: { timeoutMs: 100 } },
    ).catch((e: InputError) => e.message);
    expect(error).toBe(
      'a.wait: the stuck loader took longer than 100 ms (limits.timeoutMs); raise the limit or split the file',
    );
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('stops a running worker parse when the signal aborts, with the signal reason', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const pending = loadFile(
      { path: 'bomb.pdf', bytes: makePdfBomb(256 * 1024 * 1024) },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('user stop')), 150);
    await expect(pending).rejects.toThrow('user stop');
    expect(performance.now() - started).toBeLessThan(5000);
    const aborted = AbortSignal.abort(new Error('already'));
    await expect(loadFile({ path: 'x.md', bytes: utf8('# x') }, { signal: aborted })).rejects.toThrow(
      'already',
    );
  });

  it('rejects limits that are not positive numbers, and unknown limits', async () => {
    const bad = await loadFile({ path: 'x.md', bytes: utf8('x') }, { limits: { maxPages: 0 } }).catch(
      (e: unknown) => e,
    );
    expect(InvalidArgumentError.isInstance(bad)).toBe(true);
    expect((bad as Error).message).toBe('@grag/loaders: limits.maxPages must be a positive number, got 0');
    const unknown = await loadFile(
      { path: 'x.md', bytes: utf8('x') },
      { limits: { maxPagez: 3 } as never },
    ).catch((e: Error) => e.message);
    expect(unknown).toMatch(/^@grag\/loaders: unknown limit "maxPagez"; the limits are maxBytes, /);
  });

  it('loads many files at once through the worker pool, in any order of completion', async () => {
    const pdf = await makePdf([['Page one.'], ['Page two.']]);
    const inputs = Array.from({ length: 12 }, (_, i) =>
      i % 3 === 0
        ? { path: `f${i}.pdf`, bytes: pdf }
        : i % 3 === 1
          ? { path: `f${i}.md`, bytes: utf8(`# File ${i}\n\nText ${i}.`) }
          : { path: `f${i}.csv`, bytes: utf8(`id,text\nr${i},Row ${i}.\n`) },
    );
    const results = await Promise.all(inputs.map((input) => loadFile(input)));
    results.forEach((r, i) => {
      if (i % 3 === 0) expect(r.documents[0]!.segments!.map((s) => s.location.page)).toEqual([1, 2]);
      else if (i % 3 === 1) expect(r.documents[0]!.text).toBe(`File ${i}\n\nText ${i}.`);
      else expect(r.documents[0]!.id).toBe(`r${i}`);
    });
  });

  it('says which encoding a text file was decoded from', async () => {
    const latin1 = Uint8Array.from([...'id,text\n1,Caf'].map((c) => c.charCodeAt(0)).concat([0xe9, 0x0a]));
    const result = await loadFile({ path: 'menu.csv', bytes: latin1 });
    expect(result.documents[0]!.text).toBe('Café');
    expect(result.decoded?.encoding).toBe('latin1');
  });

  it('lists every default loader once, and documents its limits', () => {
    const names = defaultLoaders().map((l) => l.name);
    expect(names).toEqual(['markdown', 'html', 'pdf', 'docx', 'csv', 'json', 'jsonl', 'text']);
    const extensions = defaultLoaders().flatMap((l) => l.extensions);
    expect(new Set(extensions).size).toBe(extensions.length);
    expect(DEFAULT_LOADER_LIMITS).toEqual({
      maxBytes: 100 * 1024 * 1024,
      maxPages: 2000,
      maxExpandedBytes: 200 * 1024 * 1024,
      maxRecords: 1_000_000,
      timeoutMs: 60_000,
      maxMemoryBytes: 512 * 1024 * 1024,
    });
  });
});
