/**
 * "Nothing lost", for `grag query`: an index directory with each of its files missing, truncated,
 * emptied or replaced by valid data of another shape, or whose manifest names another method,
 * format or manifest version, is refused with one line naming the index (and the file at fault),
 * exit 1, no stack trace, and no file anywhere in the temporary tree changed.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, expectError, expectOk, guarded } from './adversarial-helpers.js';

let root: string;
const at = (rel: string) => join(root, rel);

/** bm25 and naive-dense, and one graph method built with the flat vector index. */
const METHODS = ['bm25', 'naive-dense', 'ket-rag'] as const;
/** The files each method's index holds (read in beforeAll, checked against what is expected). */
const files: Record<string, string[]> = {};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-adv-index-'));
  const notes = at('notes');
  await cp(join(import.meta.dirname, '..', 'demo'), notes, { recursive: true });
  for (const method of METHODS) {
    const r = await cli(
      ['index', notes, '--method', method, '--out', at(`pristine/${method}`), '--vector-index', 'flat', '-q'],
      root,
    );
    expect(r.err).toBe('');
    files[method] = (await readdir(at(`pristine/${method}`))).sort();
  }
}, 60_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

type Corruption = { name: string; apply: (path: string) => Promise<void> };

const isJson = (file: string) => file.endsWith('.json');

/** What can happen to one file of an index. */
function corruptions(file: string): Corruption[] {
  const list: Corruption[] = [
    { name: 'missing', apply: (path) => rm(path) },
    {
      name: 'truncated to half',
      apply: async (path) => {
        const bytes = await readFile(path);
        await writeFile(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
      },
    },
    { name: 'empty (0 bytes)', apply: (path) => writeFile(path, '') },
  ];
  if (isJson(file)) {
    list.push(
      {
        name: 'valid JSON of another shape (object)',
        apply: (path) => writeFile(path, '{"unexpected": [1, 2, 3]}'),
      },
      { name: 'valid JSON of another shape (array)', apply: (path) => writeFile(path, '[{"id": 1}]') },
      { name: 'valid JSON of another shape (null)', apply: (path) => writeFile(path, 'null') },
    );
  } else {
    list.push({
      name: 'bytes of another length',
      apply: (path) => writeFile(path, Buffer.from([1, 2, 3, 4, 5, 6, 7])),
    });
  }
  return list;
}

/** Edits of a valid manifest.json. */
const MANIFEST_EDITS: {
  name: string;
  edit: (m: Record<string, unknown>, method: string) => unknown;
  error: RegExp;
}[] = [
  {
    name: 'another method',
    edit: (m, method) => ({ ...m, method: method === 'bm25' ? 'naive-dense' : 'bm25' }),
    error: /./,
  },
  { name: 'an unknown method', edit: (m) => ({ ...m, method: 'nope' }), error: /'nope' index.*Available/ },
  { name: 'a newer format version', edit: (m) => ({ ...m, formatVersion: 999 }), error: /format|version/i },
  { name: 'a newer manifest version', edit: (m) => ({ ...m, manifestVersion: 999 }), error: /version/i },
  { name: 'no providers', edit: (m) => ({ ...m, providers: undefined }), error: /./ },
  { name: 'a method that is a number', edit: (m) => ({ ...m, method: 42 }), error: /manifest/ },
];

let n = 0;
/** A fresh copy of a method's pristine index. */
async function copyOf(method: string): Promise<string> {
  const dir = at(`case-${++n}-${method}`);
  await cp(at(`pristine/${method}`), dir, { recursive: true });
  return dir;
}

const question = 'Who directs the institute that owns the research vessel?';
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.each(METHODS)('grag query on a damaged %s index', (method) => {
  it('the pristine index answers (and has the files this suite damages)', async () => {
    expect(files[method]).toContain('manifest.json');
    expectOk(await guarded(['query', at(`pristine/${method}`), question, '-q'], root, root));
  });

  // Every file the index holds, whatever its name: a new file in a format is covered too.
  const expected: Record<string, string[]> = {
    bm25: ['chunks.json', 'manifest.json'],
    'naive-dense': ['chunks.json', 'embedder.json', 'embeddings.f32', 'manifest.json', 'vectors.bin'],
    'ket-rag': [
      'chunks.rows',
      'counts.bin',
      'embedder.json',
      'entities.bm25',
      'entities.rows',
      'keywords.bin',
      'keywords.json',
      'knn.bin',
      'manifest.json',
      'sentences.rows',
      'skeleton-text.bin',
      'skeleton.bin',
      'skeleton.json',
      'subchunks.bm25',
      'subchunks.rows',
      'units.json',
      'update.bin',
      'update.json',
      'vocabulary.bin',
    ],
  };
  const cases = (expected[method] ?? []).flatMap((file) =>
    corruptions(file).map((c) => [`${file} ${c.name}`, file, c] as const),
  );
  it('lists the files its index holds', () => {
    expect(files[method]).toEqual(expected[method]);
  });

  // Files an index written before them lacks: without one it still answers (an update then asks
  // for a rebuild), so only damage to it is an error.
  const optional: Record<string, string[]> = {
    'naive-dense': ['embeddings.f32'],
    // Format 2 keeps each vector collection once: the channels read the rows the update state names.
    // The BM25 arrays and the entity vocabulary are stored to spare work at load: without them the
    // index builds them again.
    'ket-rag': ['update.json', 'entities.bm25', 'subchunks.bm25', 'vocabulary.bin'],
  };
  it.each(cases)('%s', async (_name, file, corruption) => {
    const dir = await copyOf(method);
    await corruption.apply(join(dir, file));
    const r = await guarded(['query', dir, question, '-q'], root, root);
    if (corruption.name === 'missing' && optional[method]?.includes(file)) {
      expectOk(r);
      await rm(dir, { recursive: true });
      return;
    }
    // Names the index, and the damaged file unless the manifest itself is gone or unreadable.
    expectError(r, 1, new RegExp(escapeRe(dir)));
    expect(r.errorLines[0]).toMatch(new RegExp(`${escapeRe(file)}|manifest`));
    expect(r.errorLines[0]).toMatch(/rebuild|grag index/i);
    await rm(dir, { recursive: true });
  });

  it.each(MANIFEST_EDITS.map((e) => [e.name, e] as const))('manifest.json names %s', async (_name, e) => {
    const dir = await copyOf(method);
    const path = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, JSON.stringify(e.edit(manifest, method)));
    const r = await guarded(['query', dir, question, '-q'], root, root);
    expectError(r, 1, new RegExp(escapeRe(dir)));
    expect(r.errorLines[0]).toMatch(e.error);
    await rm(dir, { recursive: true });
  });
});
