import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { choosePreset } from '../src/presets.js';
import { findMethod } from '../src/registry.js';
import { captureIO, writeFiles } from './helpers.js';

async function corpusDir(): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'grag-preset-'));
  const dir = join(parent, 'corpus');
  await writeFiles(dir, {
    'ferry.md': '# Sable Gull\n\nThe Sable Gull crosses the Veskan Strait from Port Halvard.',
    'town.md': '# Merrow Falls\n\nIlse Marren was born in Merrow Falls.',
  });
  return dir;
}

const paramsOf = async (index: string) =>
  (JSON.parse(await readFile(join(index, 'manifest.json'), 'utf8')) as { params: Record<string, unknown> })
    .params;

describe('settings presets chosen by provider', () => {
  it('offline providers pick the offline preset, an endpoint or an estimate the paper preset; an explicit preset wins', () => {
    const e2 = findMethod('e2graphrag')!;
    expect(choosePreset(e2, 'offline', {}).options).toEqual({ preset: 'offline' });
    expect(choosePreset(e2, 'openai', { topK: 5 }).options).toEqual({ topK: 5, preset: 'paper' });
    expect(choosePreset(findMethod('ket-rag')!, 'estimate', {}).options).toEqual({ preset: 'paper' });
    // DA-RAG too: its build options include the preset.
    expect(choosePreset(findMethod('da-rag')!, 'offline', {}).options).toEqual({ preset: 'offline' });
    expect(choosePreset(e2, 'offline', { preset: 'paper' }).options).toEqual({ preset: 'paper' });
    expect(choosePreset(e2, 'openai', {}).line).toBe(
      "grag: e2graphrag builds with its paper preset (the paper's configuration, for an OpenAI-compatible endpoint); --set preset=offline for the offline settings.",
    );
    // A method without presets gets nothing added, and no line.
    expect(choosePreset(findMethod('bridge-rag')!, 'offline', {})).toEqual({ options: {} });
  });

  it('grag index offline builds e2graphrag with its offline preset and says so in one line', async () => {
    const dir = await corpusDir();
    const out = join(dirname(dir), 'offline');
    const io = captureIO(dir);
    expect(await run(['index', dir, '--method', 'e2graphrag', '--out', out], io), io.err()).toBe(0);
    const lines = io.errLines((l) => l.includes('builds with its'));
    expect(lines).toEqual([
      "grag: e2graphrag builds with its offline preset (grag's measured settings for the offline providers); --set preset=paper for the paper's configuration.",
    ]);
    expect(await paramsOf(out)).toMatchObject({
      preset: 'offline',
      entityLinking: true,
      entryPoints: 'hybrid',
    });
  });

  it('--set preset=paper wins offline, and the index holds the paper configuration', async () => {
    const dir = await corpusDir();
    const out = join(dirname(dir), 'paper');
    const io = captureIO(dir);
    const code = await run(
      ['index', dir, '--method', 'e2graphrag', '--out', out, '--set', 'preset=paper'],
      io,
    );
    expect(code, io.err()).toBe(0);
    expect(io.err()).toContain('grag: e2graphrag builds with its paper preset (--set preset=paper).');
    expect(await paramsOf(out)).toMatchObject({
      preset: 'paper',
      entityLinking: false,
      entryPoints: 'dense',
      bridges: 0,
    });
  });

  it('a bad preset is refused in one line naming the presets', async () => {
    const dir = await corpusDir();
    const io = captureIO(dir);
    const code = await run(
      [
        'index',
        dir,
        '--method',
        'e2graphrag',
        '--out',
        join(dirname(dir), 'bad'),
        '--set',
        'preset=book',
        '-q',
      ],
      io,
    );
    expect(code).toBe(1);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toMatch(/preset must be one of paper, offline \(got "book"\)/);
  });
});
