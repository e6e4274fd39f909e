import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexFormatError, OutputError } from '../src/index.js';
import { readManifest } from '../src/kit.js';
import { assertSameProviders } from '../src/persistence.js';
import { checkIndexTarget, writeIndexDir } from '../src/store/index.js';

const manifest = {
  method: 'demo',
  formatVersion: 2,
  params: { k: 3 },
  providers: { embedder: 'offline:x:8' },
};

describe('index directories', () => {
  it('round-trips a manifest and the files written with it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'grag-persist-'));
    const dir = join(root, 'index');
    await writeIndexDir(dir, manifest, async (tmp) => writeFile(join(tmp, 'data.txt'), 'hello'));
    const read = await readManifest(dir, { method: 'demo', formatVersion: 2 });
    expect(read).toMatchObject({ ...manifest, manifestVersion: 1 });
    expect(await readFile(join(dir, 'data.txt'), 'utf8')).toBe('hello');
  });

  it('replaces an older index whole and leaves no temporary directories', async () => {
    const root = await mkdtemp(join(tmpdir(), 'grag-persist-'));
    const dir = join(root, 'index');
    await writeIndexDir(dir, manifest, async (tmp) => writeFile(join(tmp, 'old.txt'), '1'));
    await writeIndexDir(dir, { ...manifest, params: { k: 4 } }, async (tmp) =>
      writeFile(join(tmp, 'new.txt'), '2'),
    );
    expect((await readdir(dir)).sort()).toEqual(['manifest.json', 'new.txt']);
    expect(await readdir(root)).toEqual(['index']);
    expect((await readManifest(dir)).params).toEqual({ k: 4 });
  });

  it('keeps the old index when writing the new one fails', async () => {
    const root = await mkdtemp(join(tmpdir(), 'grag-persist-'));
    const dir = join(root, 'index');
    await writeIndexDir(dir, manifest, async (tmp) => writeFile(join(tmp, 'old.txt'), '1'));
    await expect(
      writeIndexDir(dir, manifest, async () => {
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(await readFile(join(dir, 'old.txt'), 'utf8')).toBe('1');
    expect(await readdir(root)).toEqual(['index']);
  });

  it('refuses an index of another method, another version, or no index at all', async () => {
    const root = await mkdtemp(join(tmpdir(), 'grag-persist-'));
    const dir = join(root, 'index');
    await writeIndexDir(dir, manifest, async () => {});
    await expect(readManifest(dir, { method: 'other' })).rejects.toThrow(/holds a 'demo' index, not 'other'/);
    await expect(readManifest(dir, { method: 'demo', formatVersion: 3 })).rejects.toThrow(/format version 2/);
    await expect(readManifest(join(root, 'missing'))).rejects.toThrow(/does not exist/);
    await expect(readManifest(root)).rejects.toThrow(/not a grag index/);
    const error = await readManifest(dir, { method: 'other' }).catch((e) => e);
    expect(IndexFormatError.isInstance(error)).toBe(true);
  });

  it('refuses to load with another embedder than the one the index was built with', async () => {
    const full = { ...manifest, manifestVersion: 1, createdAt: '' };
    expect(() => assertSameProviders('/x', full, { embedder: 'offline:x:8' })).not.toThrow();
    expect(() => assertSameProviders('/x', full, { embedder: 'openai:y:8' })).toThrow(
      /built with embedder 'offline:x:8'/,
    );
  });

  it('never replaces what is not a grag index: a folder with files, a file, a link to such a folder', async () => {
    const root = await mkdtemp(join(tmpdir(), 'grag-persist-'));
    const folder = join(root, 'photos');
    await mkdir(join(folder, '2024'), { recursive: true });
    await writeFile(join(folder, '2024', 'a.jpg'), 'jpeg');
    const file = join(root, 'notes.txt');
    await writeFile(file, 'mine');
    const link = join(root, 'link');
    await symlink(folder, link);
    for (const target of [folder, file, link]) {
      const error = await writeIndexDir(target, manifest, async (tmp) =>
        writeFile(join(tmp, 'x'), '1'),
      ).catch((e) => e);
      expect(OutputError.isInstance(error)).toBe(true);
      expect(error.message).toContain(target);
    }
    expect(await readFile(join(folder, '2024', 'a.jpg'), 'utf8')).toBe('jpeg');
    expect(await readFile(file, 'utf8')).toBe('mine');
    expect((await readdir(root)).sort()).toEqual(['link', 'notes.txt', 'photos']);
  });

  it('says what an index path holds: absent, empty or an index', async () => {
    const root = await mkdtemp(join(tmpdir(), 'grag-persist-'));
    expect(await checkIndexTarget(join(root, 'new', 'deeper'))).toBe('absent');
    await mkdir(join(root, 'empty'));
    expect(await checkIndexTarget(join(root, 'empty'))).toBe('empty');
    await writeIndexDir(join(root, 'empty'), manifest, async () => {});
    expect(await checkIndexTarget(join(root, 'empty'))).toBe('index');
    await writeFile(join(root, 'file'), '');
    await expect(checkIndexTarget(join(root, 'file', 'sub'))).rejects.toThrow(/is a file, not a directory/);
  });
});
