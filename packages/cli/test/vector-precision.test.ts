import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoCorpusPath, run } from '../src/index.js';
import { captureIO, miniDataset } from './helpers.js';

const tmp = () => mkdtemp(join(tmpdir(), 'grag-precision-'));
const manifestOf = async (dir: string) => JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
/** The header word of a vector-rows artifact that says how its values are stored (bit 8: float16). */
const encodingWord = async (file: string) => (await readFile(file)).readUInt32LE(12);

describe('grag index --vector-precision', () => {
  it('float16 halves the stored embeddings, is recorded, is kept by add, and the index answers', async () => {
    const dir = await tmp();
    const io = captureIO(dir);
    const index = (out: string, precision: string) =>
      run(
        [
          'index',
          demoCorpusPath(),
          '--method',
          'noderag',
          '--out',
          out,
          '--vector-precision',
          precision,
          '-q',
        ],
        io,
      );
    const [full, half] = [join(dir, 'f32'), join(dir, 'f16')];
    expect(await index(full, 'float32')).toBe(0);
    expect(await index(half, 'float16')).toBe(0);
    expect((await manifestOf(full)).vectorPrecision).toBeUndefined();
    expect((await manifestOf(half)).vectorPrecision).toBe('float16');
    const rows = (d: string) => join(d, 'embeddings.rows');
    expect((await encodingWord(rows(full))) & 0x100).toBe(0);
    expect((await encodingWord(rows(half))) & 0x100).toBe(0x100);
    // The values take 2 bytes instead of 4; the bitmap of the sparse TF-IDF vectors stays.
    const [a, b] = [(await stat(rows(full))).size, (await stat(rows(half))).size];
    expect(b).toBeLessThan(0.6 * a);
    expect(b).toBeGreaterThan(0.45 * a);

    const note = join(dir, 'note.md');
    await writeFile(note, '# Gull notes\n\nThe Sable Gull leaves Port Halvard at dawn with forty cars.\n');
    expect(await run(['add', half, note, '-q'], io)).toBe(0);
    expect((await manifestOf(half)).vectorPrecision).toBe('float16');
    expect((await encodingWord(rows(half))) & 0x100).toBe(0x100);

    const asked = captureIO(dir);
    expect(
      await run(['query', half, 'When does the Sable Gull leave?', '--no-answer', '--json'], asked),
    ).toBe(0);
    expect(JSON.parse(asked.out()).retrieval.items.length).toBeGreaterThan(0);
  });

  it('refuses another value in one line, and the flag on commands that keep what the index has', async () => {
    const dir = await tmp();
    const io = captureIO(dir);
    const out = join(dir, 'idx');
    expect(
      await run(
        ['index', demoCorpusPath(), '--method', 'bm25', '--out', out, '--vector-precision', 'half'],
        io,
      ),
    ).toBe(1);
    expect(io.err().trim()).toBe('grag: --vector-precision is "half"; use float32 or float16.');
    const again = captureIO(dir);
    expect(await run(['add', out, 'x.md', '--vector-precision', 'float16'], again)).toBe(2);
    expect(again.err()).toMatch(/--vector-precision is an option of index and eval/);
  });
});

describe('grag eval --vector-precision', () => {
  it('asks float16 questions of the index as stored: saved at float16 and loaded back before them', async () => {
    const dir = miniDataset();
    const args = (out: string, extra: string[] = []) => [
      'eval',
      'mini',
      '--methods',
      'noderag',
      '--out',
      out,
      ...extra,
    ];
    const half = captureIO(dir);
    expect(await run(args('half', ['--vector-precision', 'float16']), half)).toBe(0);
    expect(half.err()).toMatch(
      /noderag: loaded the index back from .*half\/indexes\/noderag \(float16 vectors\)\./,
    );
    const saved = join(dir, 'half', 'indexes', 'noderag');
    expect((await manifestOf(saved)).vectorPrecision).toBe('float16');
    expect((await encodingWord(join(saved, 'embeddings.rows'))) & 0x100).toBe(0x100);
    const full = captureIO(dir);
    expect(await run(args('full'), full)).toBe(0);
    expect(full.err()).not.toMatch(/loaded the index back/);
    expect((await manifestOf(join(dir, 'full', 'indexes', 'noderag'))).vectorPrecision).toBeUndefined();
  });
});
