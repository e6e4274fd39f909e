import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { expectError, expectOk, guarded, hashTree } from './adversarial-helpers.js';
import { captureIO, LYON_NOTE, OSLO_NOTE, writeFiles } from './helpers.js';

const tmp = () => mkdtemp(join(tmpdir(), 'grag-update-'));

/** A corpus directory of two documents and an index of it (beside it) built with `method`. */
async function indexed(method: string): Promise<{ corpus: string; index: string; root: string }> {
  const root = await tmp();
  const corpus = join(root, 'corpus');
  await writeFiles(corpus, {
    'lyon.md': `# Lyon\n\n${LYON_NOTE} Paul Bocuse cooked in Lyon.`,
    'oslo.txt': OSLO_NOTE,
  });
  const index = join(root, 'index');
  const io = captureIO(root);
  expect(await run(['index', corpus, '--method', method, '--out', index, '-q'], io), io.err()).toBe(0);
  return { corpus, index, root };
}

/** The ids of the documents a bm25 index holds. */
async function documentsOf(index: string): Promise<string[]> {
  return (JSON.parse(await readFile(join(index, 'chunks.json'), 'utf8')) as { documents: string[] })
    .documents;
}

/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid as number;

/** The document ids of the items `grag query --json --no-answer` retrieves. */
async function retrievedDocs(root: string, index: string, question: string): Promise<string[]> {
  const io = captureIO(root);
  expect(await run(['query', index, question, '--json', '--no-answer', '--top-k', '10'], io), io.err()).toBe(
    0,
  );
  const result = JSON.parse(io.out()) as { retrieval: { items: { source: { docIds: string[] } }[] } };
  return result.retrieval.items.flatMap((item) => item.source.docIds);
}

describe('grag add and grag remove', () => {
  it('adds a file to a bm25 index in place and says what changed', async () => {
    const { index, root } = await indexed('bm25');
    const extra = join(root, 'berlin.txt');
    await writeFile(extra, 'Berlin is the capital of Germany. The Spree flows through Berlin.');
    expect(await retrievedDocs(root, index, 'Spree Germany')).toEqual([]);
    const io = captureIO(root);
    expect(await run(['add', index, extra], io), io.err()).toBe(0);
    expect(io.out()).toBe(
      `grag: updated ${index} (bm25): 1 document added, 0 removed; chunks −0 +1 (3 now); 0 model calls, 0 texts embedded\n`,
    );
    expect(await retrievedDocs(root, index, 'Spree Germany')).toEqual(['berlin.txt']);
    const manifest = JSON.parse(await readFile(join(index, 'manifest.json'), 'utf8'));
    expect(manifest.stats).toMatchObject({ documents: 3, chunks: 3 });
    // Saved in place: no temporary directory is left beside it.
    expect((await readdir(root)).sort()).toEqual(['.grag-cache', 'berlin.txt', 'corpus', 'index'].sort());
  });

  it('removes a document so that nothing retrieved cites it, and replaces one added under its id', async () => {
    const { corpus, index, root } = await indexed('bm25');
    expect(await retrievedDocs(root, index, 'Munch Museum Oslo')).toContain('oslo.txt');
    let io = captureIO(root);
    expect(await run(['remove', index, 'oslo.txt', '--json'], io), io.err()).toBe(0);
    const summary = JSON.parse(io.out());
    expect(summary.report.documents).toEqual({ added: [], replaced: [], removed: ['oslo.txt'] });
    expect(summary.report.chunks).toEqual({ removed: 1, added: 0, total: 1 });
    expect(await retrievedDocs(root, index, 'Munch Museum Oslo')).toEqual([]);

    await writeFile(join(corpus, 'lyon.md'), '# Lyon\n\nLyon hosts the Fete des Lumieres every December.');
    io = captureIO(root);
    expect(await run(['add', index, join(corpus, 'lyon.md'), '--json'], io), io.err()).toBe(0);
    expect(JSON.parse(io.out()).report.documents).toEqual({ added: [], replaced: ['lyon.md'], removed: [] });
    expect(await retrievedDocs(root, index, 'Lumieres December')).toEqual(['lyon.md']);
    expect(await retrievedDocs(root, index, 'Bocuse cooked')).toEqual([]);
  });

  it('embeds only the new chunks of a naive-dense index', async () => {
    const { index, root } = await indexed('naive-dense');
    const extra = join(root, 'more');
    await writeFiles(extra, {
      'berlin.txt': 'Berlin is the capital of Germany. The Spree flows through Berlin.',
      'rome.txt': 'Rome is the capital of Italy. The Tiber flows through Rome.',
    });
    const io = captureIO(root);
    expect(await run(['add', index, extra, '--json'], io), io.err()).toBe(0);
    const summary = JSON.parse(io.out());
    expect(summary.method).toBe('naive-dense');
    expect(summary.report.documents.added).toEqual(['berlin.txt', 'rome.txt']);
    expect(summary.report.embedded).toBe(2);
    expect(summary.usage.embeddedValues).toBe(2);
    expect(summary.report.global.map((g: { stage: string }) => g.stage)).toEqual(['vector-index']);
    expect(await retrievedDocs(root, index, 'Tiber Italy')).toContain('rome.txt');
  });

  it('refuses an unknown id in one line, leaving the index as it was', async () => {
    const { index, root } = await indexed('bm25');
    const before = await readFile(join(index, 'chunks.json'), 'utf8');
    const io = captureIO(root);
    expect(await run(['remove', index, 'lyon.md', 'paris.txt', 'rome.txt'], io)).toBe(1);
    expect(io.err()).toBe(
      'grag: bm25 update: the index holds no document with the id "paris.txt", "rome.txt"; nothing was changed. Remove only ids of indexed documents.\n',
    );
    expect(await readFile(join(index, 'chunks.json'), 'utf8')).toBe(before);
  });

  it('reports usage mistakes and a missing index in one line', async () => {
    const root = await tmp();
    let io = captureIO(root);
    expect(await run(['add', join(root, 'nope')], io)).toBe(1);
    expect(io.err()).toMatch(/^grag: Usage: grag add <dir> <path>\.\.\./);
    io = captureIO(root);
    expect(await run(['remove', join(root, 'nope'), 'x'], io)).toBe(1);
    expect(io.err()).toMatch(/^grag: Index directory .*nope does not exist/);
    expect(io.err().trim().split('\n')).toHaveLength(1);
  });

  it('skips a binary file named on the command line with one line, counts it, and adds the rest', async () => {
    const { index, root } = await indexed('bm25');
    await writeFile(join(root, 'binary.txt'), Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    await writeFile(join(root, 'good.md'), '# Bergen\n\nBergen is a harbour city in Norway.');
    const r = await guarded(
      ['add', index, join(root, 'binary.txt'), join(root, 'good.md'), '-q'],
      root,
      root,
      {},
    );
    expectOk(r);
    expect(r.infoLines).toEqual([
      `grag: skipped ${join(root, 'binary.txt')}: binary content (NUL bytes), not text`,
    ]);
    expect(r.out).toMatch(/: 1 document added \(1 input skipped\), 0 removed;/);
    expect(await documentsOf(index)).toEqual(['lyon.md', 'oslo.txt', 'good.md']);
  });

  it('refuses an add of nothing but unusable files in one line, and changes nothing', async () => {
    const { index, root } = await indexed('bm25');
    await writeFile(
      join(root, 'binary.txt'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xd8]),
    );
    await writeFile(join(root, 'empty.md'), '');
    const before = await hashTree(root);
    const r = await guarded(['add', index, join(root, 'binary.txt'), join(root, 'empty.md')], root, root, {});
    expectError(r, 1, /Nothing to add: the 2 paths given have no usable documents \(2 inputs skipped/);
    expect(await hashTree(root)).toEqual(before);
  });

  it('removes what killed saves left beside the index (dead pids only) on the next add and index', async () => {
    const { corpus, index, root } = await indexed('bm25');
    const dead = deadPid();
    const leftovers = [`.index.tmp-${dead}-0123abcd`, `.index.old-${dead}-4567cdef`];
    const live = `.index.tmp-${process.pid}-89abcdef`;
    for (const name of [...leftovers, live]) {
      await mkdir(join(root, name));
      await writeFile(join(root, name, 'chunks.json'), '{}');
    }
    await writeFile(join(root, 'berlin.txt'), 'Berlin is the capital of Germany.');
    let io = captureIO(root);
    expect(await run(['add', index, join(root, 'berlin.txt'), '-q'], io), io.err()).toBe(0);
    expect((await readdir(root)).sort()).toEqual(
      ['.grag-cache', live, 'berlin.txt', 'corpus', 'index'].sort(),
    );
    // A rebuild over the index clears them too.
    await mkdir(join(root, leftovers[0] as string));
    io = captureIO(root);
    expect(await run(['index', corpus, '--method', 'bm25', '--out', index, '-q'], io), io.err()).toBe(0);
    expect(existsSync(join(root, leftovers[0] as string))).toBe(false);
  });

  it('waits for another writer of the index, or with GRAG_LOCK_WAIT=0 is refused in one line naming it', async () => {
    const { index, root } = await indexed('bm25');
    await writeFile(join(root, 'berlin.txt'), 'Berlin is the capital of Germany.');
    // Another grag, alive, holds the lock.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const lockFile = join(root, '.index.lock');
    try {
      await writeFile(
        lockFile,
        JSON.stringify({
          pid: other.pid,
          host: hostname(),
          started: new Date().toISOString(),
          token: 'other',
        }),
      );
      const r = await guarded(['add', index, join(root, 'berlin.txt')], root, root, { GRAG_LOCK_WAIT: '0' });
      expectError(
        r,
        1,
        new RegExp(
          `^grag: ${index} is being written by another grag \\(pid ${other.pid}, since [0-9:]+\\)\\. Run this again once it has finished; if no grag is running, delete ${lockFile}\\.$`,
        ),
      );
      expect(await documentsOf(index)).toEqual(['lyon.md', 'oslo.txt']);
      // Once it is gone (killed, its lock left behind), the next add takes the lock over.
      other.kill('SIGKILL');
      await new Promise((resolve) => other.once('exit', resolve));
      const io = captureIO(root, { GRAG_LOCK_WAIT: '0' });
      expect(await run(['add', index, join(root, 'berlin.txt'), '-q'], io), io.err()).toBe(0);
      expect(await documentsOf(index)).toEqual(['lyon.md', 'oslo.txt', 'berlin.txt']);
      expect(existsSync(lockFile)).toBe(false);
    } finally {
      other.kill('SIGKILL');
    }
  });
});
