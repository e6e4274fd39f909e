/**
 * `grag eval` end to end on a small inline dataset, offline.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { captureIO, miniDataset } from './helpers.js';

const io = (cwd: string) => captureIO(cwd);

describe('grag eval', () => {
  it('evaluates methods offline, writes JSON, markdown and SVG, and resumes on a second run', async () => {
    const dir = miniDataset();
    const first = io(dir);
    const code = await run(
      ['eval', 'mini', '--methods', 'naive-dense,bm25', '--budget', '200', '--out', 'out'],
      first,
    );
    expect(first.err()).not.toMatch(/error/i);
    expect(code).toBe(0);
    expect(first.out()).toMatch(/^\| method \| questions \| Coverage \| R@2 \| R@5 \| R@10 \|/);
    expect(first.out()).toMatch(/\| naive-dense \| 3 \| /);
    expect(first.out()).toMatch(/\| bm25 \| 3 \| 1\.000 \| 1\.000 \|/);
    expect(first.err()).toContain(
      'evaluating naive-dense, bm25 on mini (grag-jsonl): 3 questions, 3 documents',
    );
    const files = readdirSync(join(dir, 'out')).sort();
    expect(files).toEqual([
      'builds.jsonl',
      'indexes',
      'latency.svg',
      'quality-vs-context-tokens.svg',
      'quality-vs-index-cost.svg',
      'report.json',
      'report.md',
      'results.jsonl',
      'run.json',
      'sessions.jsonl',
    ]);
    const manifest = JSON.parse(readFileSync(join(dir, 'out', 'run.json'), 'utf8'));
    expect(manifest.command).toBe('grag eval mini --methods naive-dense,bm25 --budget 200 --out out');
    expect(manifest.options.budgetTokens).toBe(200);
    const lines = () =>
      readFileSync(join(dir, 'out', 'results.jsonl'), 'utf8')
        .trim()
        .split('\n').length;
    expect(lines()).toBe(6);

    const second = io(dir);
    expect(
      await run(['eval', 'mini', '--methods', 'naive-dense,bm25', '--budget', '200', '--out', 'out'], second),
    ).toBe(0);
    expect(second.err()).toContain('naive-dense: 3 of 3 questions done in an earlier session; resuming.');
    expect(second.err()).toContain('bm25: every question was done in an earlier session; nothing to build.');
    expect(lines()).toBe(6);
    expect(second.out()).toBe(first.out());
  });

  it('explains a changed setting, an unknown method and a missing dataset in one line', async () => {
    const dir = miniDataset();
    await run(['eval', 'mini', '--methods', 'bm25', '--budget', '200', '--out', 'out', '-q'], io(dir));
    let e = io(dir);
    expect(await run(['eval', 'mini', '--methods', 'bm25', '--budget', '300', '--out', 'out', '-q'], e)).toBe(
      1,
    );
    expect(e.err()).toMatch(/^grag: runEval: .*results of "bm25" made with other settings.*--restart/);
    e = io(dir);
    expect(
      await run(
        ['eval', 'mini', '--methods', 'bm25', '--budget', '300', '--out', 'out', '-q', '--restart'],
        e,
      ),
    ).toBe(0);
    e = io(dir);
    expect(await run(['eval', 'mini', '--methods', 'nope'], e)).toBe(1);
    expect(e.err()).toMatch(/^grag: Unknown method "nope"\. Available: naive-dense, bm25/);
    e = io(dir);
    expect(await run(['eval', 'missing'], e)).toBe(1);
    expect(e.err()).toMatch(/^grag: @grag\/eval: dataset path .*missing does not exist\.\n$/);
    e = io(dir);
    expect(await run(['eval', 'mini', '--judge', '-q'], e)).toBe(1);
    expect(e.err()).toMatch(/--judge needs an OpenAI-compatible endpoint/);
  });

  it('loads the index it saved when --set changes only what retrieve reads', async () => {
    const dir = miniDataset();
    const args = ['eval', 'mini', '--methods', 'bridge-rag', '--out', 'out'];
    expect(await run(args, io(dir))).toBe(0);
    let e = io(dir);
    // topK: a key build only keeps as retrieve's default.
    expect(await run([...args, '--set', 'topK=2', '--restart'], e)).toBe(0);
    expect(e.err()).toContain('bridge-rag: loaded the index built in an earlier session');
    e = io(dir);
    expect(await run([...args, '--set', 'chunkSize=300', '--restart'], e)).toBe(0);
    expect(e.err()).toMatch(/bridge-rag: built the index in/);
    const builds = readFileSync(join(dir, 'out', 'builds.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(builds).toHaveLength(2);
  });

  it('hands each method only its own --set options and names a key no method knows', async () => {
    const dir = miniDataset();
    let e = io(dir);
    const args = ['eval', 'mini', '--methods', 'bm25,ket-rag', '--limit', '1', '-q', '--out', 'o1'];
    expect(await run([...args, '--set', 'chunkSzie=300'], e)).toBe(1);
    expect(e.err()).toMatch(
      /^grag: No method of this run \(bm25, ket-rag\) has an option "chunkSzie"; did you mean "chunkSize"\?\n$/,
    );
    e = io(dir);
    expect(
      await run(
        [
          'eval',
          'mini',
          '--methods',
          'bm25,ket-rag',
          '--limit',
          '1',
          '-q',
          '--out',
          'o2',
          '--variant',
          'keyword-rag',
        ],
        e,
      ),
    ).toBe(0);
    const manifest = JSON.parse(readFileSync(join(dir, 'o2', 'run.json'), 'utf8'));
    expect(JSON.stringify(manifest)).toContain('keyword-rag');
  });

  it('evaluates a dataset whose corpus is a folder of files, read by the loaders', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'grag-cli-eval-folder-'));
    const corpus = join(dir, 'handbook', 'corpus');
    mkdirSync(join(corpus, 'staff'), { recursive: true });
    writeFileSync(
      join(corpus, 'harbour.md'),
      '# Harbour\n\nThe harbour master of Port Halvard is Ada Berg.\n',
    );
    writeFileSync(join(corpus, 'staff', 'lighthouse.txt'), 'Ivo Lund keeps the Skarv lighthouse.');
    writeFileSync(
      join(corpus, 'ferries.jsonl'),
      `${JSON.stringify({ id: 'nordlys', title: 'Nordlys', text: 'The Nordlys ferry leaves Port Halvard at noon.' })}\n`,
    );
    writeFileSync(join(corpus, 'empty.md'), '');
    writeFileSync(
      join(dir, 'handbook', 'questions.jsonl'),
      [
        {
          id: 'q1',
          question: 'Who is the harbour master of Port Halvard?',
          answer: 'Ada Berg',
          supporting: ['harbour.md'],
        },
        {
          id: 'q2',
          question: 'Who keeps the Skarv lighthouse?',
          answer: 'Ivo Lund',
          supporting: ['staff/lighthouse.txt'],
        },
        {
          id: 'q3',
          question: 'When does the Nordlys ferry leave?',
          answer: 'noon',
          supporting_titles: ['Nordlys'],
        },
      ]
        .map((q) => JSON.stringify(q))
        .join('\n'),
    );
    const e = io(dir);
    expect(await run(['eval', 'handbook', '--methods', 'bm25', '--out', 'out'], e), e.err()).toBe(0);
    expect(e.err()).toContain(
      'evaluating bm25 on handbook (corpus-folder): 3 questions, 3 documents, 1 input records skipped',
    );
    expect(e.err()).toMatch(/skipped .*empty\.md: empty file/);
    expect(e.out()).toMatch(/\| bm25 \| 3 \| 1\.000 \|/);
  });
});
