/** `grag demo`: the demo corpus indexed with every method, and the same questions asked of each. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HnswUnavailableError } from '@grag/hnsw';
import { type CliIO, DEMO_QUESTIONS, demoCorpusPath } from './cli.js';
import type { GragConfig } from './config.js';
import { choosePreset } from './presets.js';
import { printable } from './printable.js';
import { createProviders } from './providers.js';
import { directoryTarget } from './store.js';

/** Index the demo corpus with each method (all, or `--methods`) and ask it {@link DEMO_QUESTIONS}. */
export async function demo(
  io: CliIO,
  config: GragConfig,
  values: { methods?: string | undefined; out?: string | undefined },
): Promise<void> {
  const [{ buildIndex }, { printQuery, queryIndex }, { METHODS }] = await Promise.all([
    import('./index-command.js'),
    import('./query-command.js'),
    import('./registry.js'),
  ]);
  // `--methods ""` names no method (an error below), not every method.
  const names =
    values.methods !== undefined
      ? values.methods.split(',').map((s) => s.trim())
      : METHODS.map((m) => m.name);
  const { mode } = createProviders(config);
  const base = values.out ?? (await mkdtemp(join(tmpdir(), 'grag-demo-')));
  const started = performance.now();
  let skipped = 0;
  try {
    for (const name of names) {
      const out = join(base, name);
      io.stdout.write(`\n== ${printable(name)} ==\n`);
      const entry = METHODS.find((m) => m.name === name);
      // The build picks the preset; the demo builds quietly, so it says which here.
      const line = entry ? choosePreset(entry, mode, {}).line : undefined;
      if (line) io.stdout.write(`${printable(line.replace(/^grag: /, ''))}\n`);
      try {
        await buildIndex(
          io,
          demoCorpusPath(),
          name,
          directoryTarget(out),
          config,
          {},
          {
            quiet: true,
            noCache: true,
          },
        );
      } catch (error) {
        // A method that cannot do without HNSW is skipped when the native addon is missing (NodeRAG
        // falls back to the flat index; none of the demo's methods needs HNSW today).
        if (!HnswUnavailableError.isInstance(error)) throw error;
        io.stdout.write(`skipped: ${printable(name)} needs HNSW (${error.reason}).\n`);
        skipped++;
        continue;
      }
      for (const question of DEMO_QUESTIONS) {
        const { result } = await queryIndex(directoryTarget(out), question, config, {
          answer: true,
          topK: 5,
        });
        printQuery(io, result, 3);
        io.stdout.write('\n');
      }
    }
    io.stdout.write(
      `demo: ${names.length - skipped} methods${skipped ? ` (${skipped} skipped)` : ''}, ${DEMO_QUESTIONS.length} questions each, ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  } finally {
    if (!values.out) await rm(base, { recursive: true, force: true });
  }
}
