/**
 * `grag index --out` never deletes what grag did not write: an existing folder that is not an
 * index, an existing file, and the corpus itself are refused with one line, and nothing changes.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { captureIO, LYON_NOTE, OSLO_NOTE, writeFiles } from './helpers.js';

/** Every file under `root` (relative path → SHA-256), so a test can see that nothing changed. */
async function hashTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else
        out[relative(root, path)] = createHash('sha256')
          .update(await readFile(path))
          .digest('hex');
    }
  };
  await walk(root);
  return out;
}

let root: string;
let corpus: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-out-'));
  corpus = join(root, 'notes');
  await writeFiles(corpus, { 'oslo.md': `# Oslo\n\n${OSLO_NOTE}`, 'lyon.txt': LYON_NOTE });
});

async function index(out: string, extra: string[] = []) {
  const io = captureIO(root);
  const code = await run(['index', corpus, '--method', 'bm25', '--out', out, '-q', ...extra], io);
  return { code, err: io.err() };
}

function expectOneLine(err: string, pattern: RegExp) {
  const lines = err.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^grag: /);
  expect(lines[0]).toMatch(pattern);
  expect(err).not.toMatch(/unexpected error|\n\s+at /);
}

describe('grag index --out keeps what grag did not write', () => {
  it('refuses an existing folder that is not an index, and its files (and subfolders) stay', async () => {
    const mine = join(root, 'thesis');
    await mkdir(join(mine, 'chapters'), { recursive: true });
    await writeFile(join(mine, 'draft.docx'), 'three years of work');
    await writeFile(join(mine, 'chapters', 'one.md'), '# One');
    const before = await hashTree(root);
    const { code, err } = await index(mine);
    expect(code).toBe(1);
    expectOneLine(err, /thesis.*not a grag index.*new or empty directory/);
    expect(await hashTree(root)).toEqual(before);
    expect(await readdir(root)).toEqual(['notes', 'thesis']);
  });

  it('refuses an existing file', async () => {
    const file = join(root, 'important.txt');
    await writeFile(file, 'do not lose me');
    const before = await hashTree(root);
    const { code, err } = await index(file);
    expect(code).toBe(1);
    expectOneLine(err, /important\.txt.*existing file/);
    expect(await hashTree(root)).toEqual(before);
  });

  it('refuses the corpus itself, a folder inside it, and a folder that holds it', async () => {
    const before = await hashTree(root);
    let r = await index(corpus);
    expect(r.code).toBe(1);
    expectOneLine(r.err, /the corpus itself/);
    r = await index(join(corpus, 'idx'));
    expect(r.code).toBe(1);
    expectOneLine(r.err, /inside the corpus/);
    r = await index(root);
    expect(r.code).toBe(1);
    expectOneLine(r.err, /contains the corpus/);
    expect(await hashTree(root)).toEqual(before);
    expect(await readdir(root)).toEqual(['notes']);
  });

  it('writes into a new or empty folder and replaces an earlier index', async () => {
    const empty = join(root, 'empty');
    await mkdir(empty);
    expect((await index(empty)).code).toBe(0);
    expect((await stat(join(empty, 'manifest.json'))).isFile()).toBe(true);
    const fresh = join(root, 'a', 'b', 'idx');
    expect((await index(fresh)).code).toBe(0);
    expect((await index(fresh)).code).toBe(0);
    expect((await readdir(join(root, 'a', 'b'))).filter((n) => !n.startsWith('.'))).toEqual(['idx']);
  });
});
