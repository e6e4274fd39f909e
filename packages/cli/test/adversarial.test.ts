/**
 * "Nothing lost": every CLI command fed bad arguments, bad option values and bad files. Each case
 * checks the exit code, exactly one `grag: …` error line naming the input (informational lines
 * such as `grag: skipped …` aside), no stack trace, no "unexpected error", and that no file outside
 * `--out` (and the `.grag-cache` next to it) changed anywhere in the temporary tree.
 * Corpus inputs (FIFOs, encodings, huge and many files…) are in adversarial-corpus.test.ts.
 */
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, cli, expectError, expectOk, guarded, IS_ROOT } from './adversarial-helpers.js';

let root: string;
/** A second temporary root, outside `root`: where a symlinked `--out` points. */
let elsewhere: string;
/** An absolute path under the temporary root. */
const at = (rel: string) => join(root, rel);

const NOTES = {
  'oslo.md': '# Oslo\n\nOslo is the capital of Norway. The Munch Museum is in Oslo.',
  'lyon.txt': 'Lyon is a city in France. The Rhone and the Saone meet in Lyon.',
  'bergen.md': '# Bergen\n\nBergen is a harbour city in Norway. Its fish market is famous.',
};

const jsonl = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-adv-'));
  elsewhere = await mkdtemp(join(tmpdir(), 'grag-adv-target-'));
  await mkdir(join(elsewhere, 'empty-target'));
  await symlink(join(elsewhere, 'empty-target'), at('linked-out'));
  await mkdir(at('mixed'));
  await writeFile(at('mixed/a.md'), '# A\n\nA note about the harbour.');
  await writeFile(at('mixed/blob.bin'), 'not read');
  await mkdir(at('user-cache'));
  await writeFile(at('user-cache/todo.txt'), 'my own folder');
  await mkdir(at('notes'));
  for (const [name, text] of Object.entries(NOTES)) await writeFile(at(`notes/${name}`), text);
  await mkdir(at('empty'));
  await mkdir(at('thesis'));
  await writeFile(at('thesis/draft.md'), 'three years of work');
  await writeFile(at('important.txt'), 'do not lose me');
  await mkdir(at('mine/bm25'), { recursive: true });
  await writeFile(at('mine/bm25/notes.md'), 'my notes');
  await writeFile(at('bad.json'), '{"budget": 12000,');
  await writeFile(at('array.json'), '[1, 2]');
  await writeFile(at('types.json'), JSON.stringify({ budget: 'lots' }));
  await writeFile(at('unknown-key.json'), JSON.stringify({ colour: 'blue' }));
  await writeFile(at('provider.json'), JSON.stringify({ provider: 'nope' }));
  await writeFile(at('prices-shape.json'), JSON.stringify({ 'gpt-4o-mini': { input: 'cheap' } }));
  await writeFile(at('prices-array.json'), '[]');
  await mkdir(at('mini'));
  await writeFile(
    at('mini/corpus.jsonl'),
    jsonl([
      { id: 'p1', title: 'Ada', text: 'Ada Lovelace was born in London in 1815.' },
      { id: 'p2', title: 'Paris', text: 'Paris is the capital of France.' },
    ]),
  );
  await writeFile(
    at('mini/questions.jsonl'),
    jsonl([
      { id: 'q1', question: 'Where was Ada Lovelace born?', answers: ['London'], supporting: ['p1'] },
      { id: 'q2', question: 'What is the capital of France?', answers: ['Paris'], supporting: ['p2'] },
    ]),
  );
  await mkdir(at('broken-dataset'));
  await writeFile(at('broken-dataset/corpus.jsonl'), '{"id": "p1", "text": \n');
  await writeFile(at('broken-dataset/questions.jsonl'), 'not json at all\n');
  // One index per method for the query cases, built once.
  for (const method of ['bm25', 'naive-dense']) {
    const r = await cli(['index', at('notes'), '--method', method, '--out', at(`idx/${method}`), '-q'], root);
    expect(r.err).toBe('');
  }
}, 60_000);

afterAll(async () => {
  for (const dir of [root, elsewhere]) if (dir) await rm(dir, { recursive: true, force: true });
});

interface Case {
  name: string;
  argv: () => string[];
  env?: NodeJS.ProcessEnv;
  code: number;
  /** The one error line (exit ≠ 0), or undefined for a success. */
  error?: RegExp;
  check?: (r: CliResult) => void | Promise<void>;
}

function table(cases: Case[]): void {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const r = await guarded(c.argv(), root, root, c.env);
    if (c.error) expectError(r, c.code, c.error);
    else {
      expect(c.code).toBe(0);
      expectOk(r);
    }
    await c.check?.(r);
  });
}

/** Cases of one numeric option: out of range, wrong type, and a missing value at the end. */
function numericCases(
  command: string,
  base: () => string[],
  flag: string,
  name: RegExp,
  values = ['0', '-1', 'abc', '1.5', '1e999', ''],
): Case[] {
  return [
    ...values.map((v) => ({
      name: `${command} --${flag} ${JSON.stringify(v)}`,
      argv: () => [...base(), `--${flag}`, v],
      code: 1,
      error: new RegExp(`${name.source}.*(positive integer|must be)`),
    })),
    {
      name: `${command} --${flag} with its value missing at the end`,
      argv: () => [...base(), `--${flag}`],
      code: 2,
      error: new RegExp(`--${flag}.*(argument missing|value)`),
    },
  ];
}

const index = () => ['index', at('notes'), '--method', 'bm25', '--out', at('new-index'), '-q'];

describe('grag index: arguments and options', () => {
  table([
    {
      name: 'index with no path',
      argv: () => ['index', '--method', 'bm25', '--out', at('o1')],
      code: 1,
      error: /Missing corpus path/,
    },
    {
      name: 'index with no --method',
      argv: () => ['index', at('notes'), '--out', at('o1')],
      code: 1,
      error: /Missing --method.*bm25/,
    },
    {
      name: 'index with no --out',
      argv: () => ['index', at('notes'), '--method', 'bm25'],
      code: 1,
      error: /Missing --out/,
    },
    {
      name: 'index with a second corpus path that does not exist (refused before anything is built)',
      argv: () => [...index(), at('no-such-folder')],
      code: 1,
      error: /Corpus path .*no-such-folder does not exist/,
    },
    {
      name: 'index with a glob that matches nothing',
      argv: () => [...index(), `${at('notes')}/*.nothing`],
      code: 1,
      error: /No file matches .*notes\/\*\.nothing/,
    },
    {
      name: 'index --method nope',
      argv: () => ['index', at('notes'), '--method', 'nope', '--out', at('o1')],
      code: 1,
      error: /Unknown method "nope"\. Available: .*bm25/,
    },
    {
      name: 'index --method with its value missing',
      argv: () => ['index', at('notes'), '--out', at('o1'), '--method'],
      code: 2,
      error: /--method.*argument missing/,
    },
    {
      name: 'index --out with its value missing',
      argv: () => ['index', at('notes'), '--method', 'bm25', '--out'],
      code: 2,
      error: /--out.*argument missing/,
    },
    ...numericCases('index', index, 'budget', /budget/),
    ...numericCases('index', index, 'concurrency', /concurrency/),
    ...numericCases('index', index, 'embedding-dimensions', /embeddingDimensions/),
    ...['0', 'abc', '5'].map((v) => ({
      name: `index --top-k ${v} (a query option, would be ignored)`,
      argv: () => [...index(), '--top-k', v],
      code: 2,
      error: /--top-k is an option of query and eval, not of index/,
    })),
    {
      name: 'index --provider nope',
      argv: () => [...index(), '--provider', 'nope'],
      code: 1,
      error: /provider must be one of auto, offline, openai, got "nope"/,
    },
    {
      name: 'index --offline-embedder nope',
      argv: () => [...index(), '--offline-embedder', 'nope'],
      code: 1,
      error: /offlineEmbedder must be one of tfidf, glove, got "nope"/,
    },
    {
      name: 'index --vector-index nope',
      argv: () => [...index(), '--vector-index', 'nope'],
      code: 1,
      error: /vectorIndex must be one of flat, hnsw, got "nope"/,
    },
    {
      name: 'index --chat-model ""',
      argv: () => [...index(), '--chat-model', ''],
      code: 1,
      error: /chatModel must be a non-empty string/,
    },
    {
      name: 'index --set with its value missing',
      argv: () => [...index(), '--set'],
      code: 2,
      error: /--set.*argument missing/,
    },
    {
      name: 'index --set =1',
      argv: () => [...index(), '--set', '=1'],
      code: 1,
      error: /Bad --set "=1".*key=value/,
    },
    {
      name: 'index --set k',
      argv: () => [...index(), '--set', 'k'],
      code: 1,
      error: /Bad --set "k".*key=value/,
    },
    {
      name: 'index --set nosuchoption=1 (unknown key)',
      argv: () => [...index(), '--set', 'nosuchoption=1'],
      code: 1,
      error: /nosuchoption/,
    },
    {
      name: 'index --set chunkSize=-5',
      argv: () => [...index(), '--set', 'chunkSize=-5'],
      code: 1,
      error: /chunkSize/,
    },
    {
      name: 'index --set chunkSize=abc',
      argv: () => [...index(), '--set', 'chunkSize=abc'],
      code: 1,
      error: /chunkSize/,
    },
    {
      name: 'index --set chunkSize=abc is refused before the corpus is read',
      argv: () => [
        'index',
        at('mixed'),
        '--method',
        'bm25',
        '--out',
        at('new-index'),
        '-q',
        '--set',
        'chunkSize=abc',
      ],
      code: 1,
      error: /bm25 build: chunkSize must be a positive integer \(got "abc"\)/,
      // Read, the corpus would say `grag: skipped …blob.bin: not a .txt, .md or .jsonl file`.
      check: (r) => expect(r.infoLines).toEqual([]),
    },
    {
      name: 'index --set overlap=5000 (a value only its combination refuses) before the corpus is read',
      argv: () => [
        'index',
        at('mixed'),
        '--method',
        'da-rag',
        '--out',
        at('new-index'),
        '-q',
        '--set',
        'overlap=5000',
      ],
      code: 1,
      error: /overlap \(5000\) must be below chunkSize/,
      check: (r) => expect(r.infoLines).toEqual([]),
    },
    {
      name: 'index --cache-dir a folder of the user leaves nothing behind in it',
      argv: () => [...index(), '--cache-dir', at('user-cache')],
      code: 0,
      // guarded: the folder (not an output) hashes the same before and after.
      check: async () => expect(await readdir(at('user-cache'))).toEqual(['todo.txt']),
    },
    {
      name: 'index --variant nope (ket-rag)',
      argv: () => ['index', at('notes'), '--method', 'ket-rag', '--out', at('o1'), '--variant', 'nope', '-q'],
      code: 1,
      error: /variant.*nope/,
    },
    {
      name: 'index --variant nope (bm25 has no variants)',
      argv: () => [...index(), '--variant', 'nope'],
      code: 1,
      error: /variant/,
    },
    {
      name: 'index --prices missing.json',
      argv: () => [...index(), '--prices', at('missing.json')],
      code: 1,
      error: /price table .*missing\.json \(ENOENT\)/,
    },
    {
      name: 'index --prices bad JSON',
      argv: () => [...index(), '--prices', at('bad.json')],
      code: 1,
      error: /price table .*bad\.json/,
    },
    {
      name: 'index --prices of the wrong shape',
      argv: () => [...index(), '--prices', at('prices-shape.json')],
      code: 1,
      error: /price table .*prices-shape\.json must map model ids/,
    },
    {
      name: 'index --prices []',
      argv: () => [...index(), '--prices', at('prices-array.json')],
      code: 1,
      error: /price table .*prices-array\.json must map model ids/,
    },
    {
      name: 'index --config missing.json',
      argv: () => [...index(), '--config', at('missing.json')],
      code: 1,
      error: /config file .*missing\.json \(ENOENT\)/,
    },
    {
      name: 'index --config a directory',
      argv: () => [...index(), '--config', at('empty')],
      code: 1,
      error: /config file .*empty \(EISDIR\)/,
    },
    {
      name: 'index --config bad JSON',
      argv: () => [...index(), '--config', at('bad.json')],
      code: 1,
      error: /bad\.json is not valid JSON/,
    },
    {
      name: 'index --config holding an array',
      argv: () => [...index(), '--config', at('array.json')],
      code: 1,
      error: /array\.json must hold a JSON object/,
    },
    {
      name: 'index --config with a wrong type',
      argv: () => [...index(), '--config', at('types.json')],
      code: 1,
      error: /types\.json: budget must be a positive integer, got "lots"/,
    },
    {
      name: 'index --config with an unknown key',
      argv: () => [...index(), '--config', at('unknown-key.json')],
      code: 1,
      error: /unknown-key\.json: unknown key "colour"/,
    },
    {
      name: 'index --config with a bad choice',
      argv: () => [...index(), '--config', at('provider.json')],
      code: 1,
      error: /provider\.json: provider must be one of/,
    },
    { name: 'index --nope (unknown flag)', argv: () => [...index(), '--nope'], code: 2, error: /--nope/ },
    { name: 'index -x (unknown short flag)', argv: () => [...index(), '-x'], code: 2, error: /-x/ },
    {
      name: 'index --json=1 (value for a boolean flag)',
      argv: () => [...index(), '--json=1'],
      code: 2,
      error: /--json/,
    },
    {
      name: 'index --cache-dir an existing file',
      argv: () => [...index(), '--cache-dir', at('important.txt')],
      code: 1,
      error: /model-call cache in .*important\.txt: .*important\.txt is a file, not a directory/,
    },
    {
      name: 'index --cache-dir under an existing file',
      argv: () => [...index(), '--cache-dir', at('important.txt/cache')],
      code: 1,
      error: /model-call cache in .*important\.txt\/cache: .*important\.txt is a file/,
    },
    {
      name: 'index --estimate --cache-dir an existing file',
      argv: () => [...index(), '--estimate', '--cache-dir', at('important.txt')],
      code: 0,
    },
    {
      name: 'index --cache-dir in a read-only place (/proc)',
      argv: () => [...index(), '--cache-dir', '/proc/grag-adversarial-cache'],
      code: 1,
      error: /Cannot create the model-call cache directory \/proc\/grag-adversarial-cache \(ENOENT\)/,
    },
    {
      name: 'eval --cache-dir an existing file',
      argv: () => [
        'eval',
        at('mini'),
        '--methods',
        'bm25',
        '--out',
        at('e2'),
        '--cache-dir',
        at('important.txt'),
      ],
      code: 1,
      error: /model-call cache in .*important\.txt/,
    },
    {
      name: 'index with GRAG_BUDGET=abc in the environment',
      argv: index,
      env: { GRAG_BUDGET: 'abc' },
      code: 1,
      error: /environment variable GRAG_BUDGET: budget must be a positive integer, got "abc"/,
    },
    {
      name: 'index with GRAG_VECTOR_INDEX=nope in the environment',
      argv: index,
      env: { GRAG_VECTOR_INDEX: 'nope' },
      code: 1,
      error: /environment variable GRAG_VECTOR_INDEX: vectorIndex must be one of flat, hnsw/,
    },
    {
      name: 'index --prices a directory',
      argv: () => [...index(), '--prices', at('empty')],
      code: 1,
      error: /price table .*empty \(EISDIR\)/,
    },
    {
      name: 'index --budget 1 (tiny but valid) builds',
      argv: () => [...index(), '--budget', '1'],
      code: 0,
    },
  ]);
});

describe('grag index --out', () => {
  const to =
    (out: () => string): (() => string[]) =>
    () => ['index', at('notes'), '--method', 'bm25', '--out', out(), '-q'];
  table([
    {
      name: '--out an existing folder that is not an index',
      argv: to(() => at('thesis')),
      code: 1,
      error: /thesis.*not a grag index/,
    },
    {
      name: '--out an existing file',
      argv: to(() => at('important.txt')),
      code: 1,
      error: /important\.txt: it is an existing file/,
    },
    { name: '--out the corpus itself', argv: to(() => at('notes')), code: 1, error: /the corpus itself/ },
    { name: '--out inside the corpus', argv: to(() => at('notes/idx')), code: 1, error: /inside the corpus/ },
    {
      name: '--out a folder holding the corpus',
      argv: to(() => root),
      code: 1,
      error: /contains the corpus/,
    },
    {
      name: '--out under a file (parent is not a directory)',
      argv: to(() => at('important.txt/index')),
      code: 1,
      error: /important\.txt/,
    },
    {
      name: '--out in a read-only place (/proc)',
      argv: to(() => '/proc/grag-adversarial-index'),
      code: 1,
      error: /\/proc/,
    },
    {
      name: '--out an index folder that also holds a file of the user is refused, the file kept',
      argv: to(() => at('index-with-notes')),
      code: 1,
      error:
        /index-with-notes: it also holds notes\.txt, which grag did not write .*move it out of .*index-with-notes, or write the index to another directory\.$/,
      check: async () => {
        expect(await readFile(at('index-with-notes/notes.txt'), 'utf8')).toBe('mine');
        expect(JSON.parse(await readFile(at('index-with-notes/manifest.json'), 'utf8')).method).toBe(
          'naive-dense',
        );
      },
    },
    {
      name: '--out a symbolic link to an empty folder is written through, the link kept',
      argv: to(() => at('linked-out')),
      code: 0,
      check: async () => {
        expect((await lstat(at('linked-out'))).isSymbolicLink()).toBe(true);
        expect(JSON.parse(await readFile(join(elsewhere, 'empty-target/manifest.json'), 'utf8')).method).toBe(
          'bm25',
        );
        expect((await readdir(elsewhere)).sort()).toEqual(['empty-target']);
      },
    },
    {
      name: '--out an existing index of another method is replaced',
      argv: to(() => at('replaceable')),
      code: 0,
      check: async () => {
        expect(JSON.parse(await readFile(at('replaceable/manifest.json'), 'utf8')).method).toBe('bm25');
      },
    },
  ]);
  beforeAll(async () => {
    for (const out of ['replaceable', 'index-with-notes']) {
      const r = await cli(['index', at('notes'), '--method', 'naive-dense', '--out', at(out), '-q'], root);
      expect(r.code).toBe(0);
    }
    await writeFile(at('index-with-notes/notes.txt'), 'mine');
  });
  // As root (CI), permissions do not stop writes; the /proc row above covers an unwritable place.
  it.skipIf(IS_ROOT)('--out under a directory without write permission (non-root only)', async () => {
    await mkdir(at('read-only'));
    await chmod(at('read-only'), 0o555);
    try {
      const r = await guarded(
        ['index', at('notes'), '--method', 'bm25', '--out', at('read-only/index'), '-q'],
        root,
        root,
      );
      expectError(r, 1, /read-only.* is not writable \(EACCES\)/);
    } finally {
      await chmod(at('read-only'), 0o755);
    }
  });
});

const HUGE = 'Which harbour city is in Norway? '.repeat(3100).slice(0, 100_000);

describe('grag query: arguments and options', () => {
  const q = (method = 'bm25') => ['query', at(`idx/${method}`), 'Which city is in Norway?', '-q'];
  table([
    {
      name: 'query with no arguments',
      argv: () => ['query'],
      code: 1,
      error: /Usage: grag query <dir> "<question>"/,
    },
    {
      name: 'query with no question',
      argv: () => ['query', at('idx/bm25')],
      code: 1,
      error: /Usage: grag query <dir> "<question>"/,
    },
    ...['bm25', 'naive-dense'].flatMap((method): Case[] => [
      {
        name: `query ${method} with an empty question`,
        argv: () => ['query', at(`idx/${method}`), ''],
        code: 1,
        error: /question is empty/,
      },
      {
        name: `query ${method} with a blank question`,
        argv: () => ['query', at(`idx/${method}`), ' \t\n '],
        code: 1,
        error: /question is empty/,
      },
      {
        name: `query ${method} with a 100k-character question`,
        argv: () => ['query', at(`idx/${method}`), HUGE, '--json'],
        code: 0,
        check: (r) => {
          const result = JSON.parse(r.out) as { question: string; retrieval: { items: unknown[] } };
          expect(result.question).toHaveLength(100_000);
        },
      },
      {
        name: `query ${method} with a question of only punctuation`,
        argv: () => ['query', at(`idx/${method}`), '?!…', '--json'],
        code: 0,
      },
    ]),
    ...numericCases('query', q, 'budget', /budget/),
    ...numericCases('query', q, 'top-k', /top-k/),
    {
      name: 'query --budget 1 (tiny) answers from an empty context',
      argv: () => [...q(), '--budget', '1', '--json'],
      code: 0,
    },
    {
      name: 'query --top-k 100000 (more than there are chunks)',
      argv: () => [...q(), '--top-k', '100000', '--json'],
      code: 0,
    },
    {
      name: 'query --provider nope',
      argv: () => [...q(), '--provider', 'nope'],
      code: 1,
      error: /provider must be one of/,
    },
    {
      name: 'query --config bad JSON',
      argv: () => [...q(), '--config', at('bad.json')],
      code: 1,
      error: /bad\.json is not valid JSON/,
    },
    { name: 'query --nope (unknown flag)', argv: () => [...q(), '--nope'], code: 2, error: /--nope/ },
    {
      name: 'query a directory that does not exist',
      argv: () => ['query', at('no-such-index'), 'Where?'],
      code: 1,
      error: /no-such-index does not exist/,
    },
    {
      name: 'query an empty directory',
      argv: () => ['query', at('empty'), 'Where?'],
      code: 1,
      error: /empty is not a grag index/,
    },
    {
      name: 'query a corpus folder (not an index)',
      argv: () => ['query', at('notes'), 'Where?'],
      code: 1,
      error: /notes is not a grag index/,
    },
    {
      name: 'query a directory named with an escape sequence and a line feed: one line, escapes visible',
      argv: () => ['query', at('no\u001b[2J\nsuch'), 'Where?'],
      code: 1,
      error: /no\\x1b\[2J\\nsuch does not exist/,
      check: (r) => expect(r.err).not.toMatch(/\u001b/),
    },
    {
      name: 'query a file',
      argv: () => ['query', at('important.txt'), 'Where?'],
      code: 1,
      error: /important\.txt is a file, not an index directory/,
    },
  ]);
});

describe('grag eval: arguments and options', () => {
  const ev = () => ['eval', at('mini'), '--methods', 'bm25', '--out', at('eval-out'), '-q'];
  table([
    {
      name: 'eval with no dataset',
      argv: () => ['eval', '--methods', 'bm25'],
      code: 1,
      error: /Missing dataset/,
    },
    {
      name: 'eval with two datasets (the second would be silently ignored)',
      argv: () => ['eval', at('mini'), at('broken-dataset'), '--methods', 'bm25', '--out', at('e1')],
      code: 2,
      error: /eval takes one dataset, got 2/,
    },
    {
      name: 'eval a dataset that does not exist',
      argv: () => ['eval', at('no-such-dataset'), '--methods', 'bm25', '--out', at('e1')],
      code: 1,
      error: /no-such-dataset does not exist/,
    },
    {
      name: 'eval an empty directory',
      argv: () => ['eval', at('empty'), '--methods', 'bm25', '--out', at('e1')],
      code: 1,
      error: /cannot tell the layout of empty/,
    },
    {
      name: 'eval a text file',
      argv: () => ['eval', at('important.txt'), '--methods', 'bm25', '--out', at('e1')],
      code: 1,
      error: /important\.txt/,
    },
    {
      name: 'eval a dataset of malformed JSONL',
      argv: () => ['eval', at('broken-dataset'), '--methods', 'bm25', '--out', at('e1')],
      code: 1,
      error: /broken-dataset/,
    },
    {
      name: 'eval --methods nope',
      argv: () => ['eval', at('mini'), '--methods', 'bm25,nope', '--out', at('e1')],
      code: 1,
      error: /Unknown method "nope"/,
    },
    {
      name: 'eval --methods ","',
      argv: () => ['eval', at('mini'), '--methods', ',', '--out', at('e1')],
      code: 1,
      error: /--methods "," names no method\. Available: /,
    },
    {
      name: 'eval --methods "" (not every method)',
      argv: () => ['eval', at('mini'), '--methods', '', '--out', at('e1')],
      code: 1,
      error: /--methods "" names no method\. Available: /,
    },
    {
      name: 'eval --methods with its value missing',
      argv: () => ['eval', at('mini'), '--out', at('e1'), '--methods'],
      code: 2,
      error: /--methods.*argument missing/,
    },
    ...numericCases('eval', ev, 'limit', /limit/),
    ...numericCases('eval', ev, 'top-k', /top-k/),
    ...numericCases('eval', ev, 'concurrency', /concurrency/),
    ...numericCases('eval', ev, 'budget', /budget/),
    {
      name: 'eval --judge offline',
      argv: () => [...ev(), '--judge'],
      code: 1,
      error: /--judge needs an OpenAI-compatible endpoint/,
    },
    {
      name: 'eval --out an existing file',
      argv: () => ['eval', at('mini'), '--methods', 'bm25', '--out', at('important.txt'), '-q'],
      code: 1,
      error: /important\.txt is an existing file/,
    },
    {
      name: 'eval --out a folder that holds no evaluation',
      argv: () => ['eval', at('mini'), '--methods', 'bm25', '--out', at('thesis'), '-q'],
      code: 1,
      error: /thesis exists and holds no earlier evaluation/,
    },
    {
      name: 'eval --out the dataset itself',
      argv: () => ['eval', at('mini'), '--methods', 'bm25', '--out', at('mini'), '-q'],
      code: 1,
      error: /mini/,
    },
    { name: 'eval --nope (unknown flag)', argv: () => [...ev(), '--nope'], code: 2, error: /--nope/ },
    {
      name: 'eval --limit 1 --methods bm25 runs',
      argv: () => [...ev(), '--limit', '1'],
      code: 0,
      check: (r) => expect(r.out).toMatch(/\| bm25 \| 1 \|/),
    },
  ]);
});

describe('grag demo, methods, --help, --version and unknown commands', () => {
  table([
    {
      name: 'demo --methods nope',
      argv: () => ['demo', '--methods', 'nope', '-q'],
      code: 1,
      error: /Unknown method "nope"/,
    },
    {
      name: 'demo --methods ","',
      argv: () => ['demo', '--methods', ',', '-q'],
      code: 1,
      error: /--methods|Unknown method/,
    },
    {
      name: 'demo --methods "" (not every method)',
      argv: () => ['demo', '--methods', '', '-q'],
      code: 1,
      error: /Unknown method ""/,
    },
    {
      name: 'demo --methods with its value missing',
      argv: () => ['demo', '--methods'],
      code: 2,
      error: /--methods.*argument missing/,
    },
    ...numericCases('demo', () => ['demo', '--methods', 'bm25', '-q'], 'budget', /budget/),
    {
      name: 'demo --out an existing file',
      argv: () => ['demo', '--methods', 'bm25', '--out', at('important.txt'), '-q'],
      code: 1,
      error: /important\.txt/,
    },
    {
      name: 'demo --out a folder of mine adds an index folder per method next to my files',
      argv: () => ['demo', '--methods', 'bm25', '--out', at('thesis'), '-q'],
      code: 0,
      check: async () => {
        expect(await readFile(at('thesis/draft.md'), 'utf8')).toBe('three years of work');
        expect((await readdir(at('thesis'))).sort()).toEqual(['bm25', 'draft.md']);
      },
    },
    {
      name: 'demo --out a folder whose method subfolder is mine is refused',
      argv: () => ['demo', '--methods', 'bm25', '--out', at('mine'), '-q'],
      code: 1,
      error: /mine\/bm25.*not a grag index/,
      check: async () => {
        expect(await readFile(at('mine/bm25/notes.md'), 'utf8')).toBe('my notes');
      },
    },
    {
      name: 'demo --out in a read-only place (/proc)',
      argv: () => ['demo', '--methods', 'bm25', '--out', '/proc/grag-adversarial-demo', '-q'],
      code: 1,
      error: /\/proc\/grag-adversarial-demo\/bm25.*not writable/,
    },
    {
      name: 'demo --provider nope',
      argv: () => ['demo', '--provider', 'nope'],
      code: 1,
      error: /provider must be one of/,
    },
    { name: 'demo --nope (unknown flag)', argv: () => ['demo', '--nope'], code: 2, error: /--nope/ },
    {
      name: 'demo --methods bm25 runs',
      argv: () => ['demo', '--methods', 'bm25', '-q'],
      code: 0,
      check: (r) => expect(r.out).toMatch(/demo: 1 methods, 3 questions each/),
    },
    {
      name: 'methods lists every method',
      argv: () => ['methods'],
      code: 0,
      check: (r) => expect(r.out).toMatch(/^naive-dense .*\n {15}tasks: none\nbm25 /),
    },
    {
      name: 'methods --budget abc',
      argv: () => ['methods', '--budget', 'abc'],
      code: 1,
      error: /budget must be a positive integer/,
    },
    { name: 'methods --nope', argv: () => ['methods', '--nope'], code: 2, error: /--nope/ },
    { name: '--help', argv: () => ['--help'], code: 0, check: (r) => expect(r.out).toMatch(/^Usage: grag/) },
    { name: '-h', argv: () => ['-h'], code: 0, check: (r) => expect(r.out).toMatch(/^Usage: grag/) },
    {
      name: 'index --help',
      argv: () => ['index', '--help'],
      code: 0,
      check: (r) => expect(r.out).toMatch(/^Usage: grag/),
    },
    {
      name: '--version',
      argv: () => ['--version'],
      code: 0,
      check: (r) => expect(r.out).toMatch(/^\d+\.\d+\.\d+\S*\n$/),
    },
    { name: '-v', argv: () => ['-v'], code: 0, check: (r) => expect(r.out).toMatch(/^\d+\.\d+\.\d+/) },
    { name: '--help=1', argv: () => ['--help=1'], code: 2, error: /--help/ },
    {
      name: 'unknown command',
      argv: () => ['nope'],
      code: 2,
      error: /unknown command "nope"\. Run `grag --help`/,
    },
    {
      name: 'unknown command with a bad option value still names the command',
      argv: () => ['nope', '--budget', 'abc'],
      code: 2,
      error: /unknown command "nope"/,
    },
    { name: 'unknown flag alone', argv: () => ['--nope'], code: 2, error: /--nope/ },
    { name: 'a lone dash', argv: () => ['-'], code: 2, error: /unknown command "-"/ },
  ]);

  it('no command prints the usage on stdout and exits 2, with nothing on stderr', async () => {
    const r = await guarded([], root, root);
    expect(r.code).toBe(2);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^Usage: grag/);
  });
});
