/**
 * The root README's quick start, run as written: every `node grag.mjs …` line of the block
 * that indexes `examples/mixed-files` (in a copy of the files it names, so the repository stays as
 * it is), and the output its `# …` comments show under a command is what the command prints.
 * `grag serve` runs until it is stopped: it is started on a free port and stopped.
 */
import { cp, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { run } from '../src/index.js';
import { captureIO } from './helpers.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** The words of a shell command line: single and double quotes group, `#` starts a comment. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (ch === '#' && word === undefined) break;
    else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + ch;
  }
  if (word !== undefined) words.push(word);
  return words;
}

interface Step {
  argv: string[];
  /** The comment lines shown under the command: what it prints. */
  shows: string[];
}

/** The steps of the quick-start block that indexes a folder. */
async function quickStart(): Promise<Step[]> {
  const readme = await readFile(join(repo, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Quick start'),
    readme.indexOf('\n## ', readme.indexOf('## Quick start') + 3),
  );
  const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .find((b) => b.includes('grag.mjs index'));
  if (!block) throw new Error('README quick start: no sh block with grag.mjs index');
  const steps: Step[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('node grag.mjs ')) steps.push({ argv: shellWords(line).slice(2), shows: [] });
    else if (line.startsWith('# ') && steps.length)
      steps.at(-1)!.shows.push(line.slice(2).replace(/(; )?…$/, ''));
    else if (line.trim() !== '') throw new Error(`README quick start: a line the test does not run: ${line}`);
  }
  return steps;
}

describe('README quick start', () => {
  it('indexes the folder of mixed files, queries it with the answers and citations shown, and the rest runs', async () => {
    const steps = await quickStart();
    expect(steps.map((s) => s.argv[0])).toEqual([
      'index',
      'query',
      'query',
      'index',
      'add',
      'remove',
      'serve',
    ]);
    const cwd = await mkdtemp(join(tmpdir(), 'grag-readme-'));
    // The commands' relative paths (--out ./my-index, the index of add and serve) are the working
    // directory's, as in a shell: the test runs in a process of its own (vitest's forks pool).
    const home = process.cwd();
    process.chdir(cwd);
    onTestFinished(() => process.chdir(home));
    await cp(join(repo, 'examples', 'mixed-files'), join(cwd, 'examples', 'mixed-files'), {
      recursive: true,
    });
    await cp(join(repo, 'packages', 'cli', 'demo'), join(cwd, 'packages', 'cli', 'demo'), {
      recursive: true,
    });
    for (const step of steps) {
      const io = captureIO(cwd);
      if (step.argv[0] === 'serve') {
        const stop = new AbortController();
        io.signal = stop.signal;
        const running = run([...step.argv, '--port', '0', '--no-explorer'], io);
        for (let i = 0; i < 400 && !/ at http:/.test(io.out()) && !/error/i.test(io.err()); i++)
          await new Promise((r) => setTimeout(r, 25));
        const url = / at (http:\/\/127\.0\.0\.1:\d+)/.exec(io.out())?.[1];
        expect(url, io.err()).toBeDefined();
        const res = await fetch(`${url}/v1/query`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ question: 'Who is the harbour master of Port Halvard?', answer: true }),
        });
        expect(((await res.json()) as { answer: { text: string } }).answer.text).toBe('Tomas Vik');
        stop.abort();
        expect(await running, io.err()).toBe(0);
        continue;
      }
      const code = await run(step.argv, io);
      expect(code, `grag ${step.argv.join(' ')}: ${io.err()}`).toBe(0);
      const printed = io.out().split('\n');
      for (const shown of step.shows) {
        if (!/^\s*(A|sources):/.test(shown)) continue;
        expect(
          printed.some((line) => line.startsWith(shown)),
          `${shown}\nin\n${io.out()}`,
        ).toBe(true);
      }
      if (step.argv[0] === 'index' && !step.argv.includes('--estimate'))
        expect(io.err()).toContain('grag: indexing 7 documents from 5 files with naive-dense');
    }
  }, 60_000);
});
