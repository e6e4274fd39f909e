import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeIndexDir } from '@grag/core/store';
import { beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { captureIO } from './helpers.js';

const tmp = () => mkdtemp(join(tmpdir(), 'grag-cli-'));
/** An output path beside a corpus directory (never inside it: grag refuses that). */
const outside = (dir: string, name: string) => `${dir}-${name}`;

async function corpusDir(): Promise<string> {
  const dir = await tmp();
  await writeFile(
    join(dir, 'lyon.md'),
    '# Lyon\n\nLyon is a city in France. The Rhone and the Saone meet in Lyon. Paul Bocuse cooked in Lyon.',
  );
  await writeFile(join(dir, 'oslo.txt'), 'Oslo is the capital of Norway. The Munch Museum is in Oslo.');
  return dir;
}

describe('grag CLI errors', () => {
  it('reports a missing corpus path in one line with a non-zero exit', async () => {
    const io = captureIO(await tmp());
    // An output folder of the test's own, not a fixed path another process may hold.
    const out = join(await mkdtemp(join(tmpdir(), 'grag-cli-')), 'index');
    const code = await run(['index', '/no/such/dir', '--method', 'bm25', '--out', out], io);
    expect(code).toBe(1);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toMatch(/^grag: Corpus path \/no\/such\/dir does not exist/);
  });

  it('refuses an empty corpus and says how many inputs were skipped', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'empty.txt'), '   \n');
    const io = captureIO(dir);
    expect(await run(['index', dir, '--method', 'bm25', '--out', outside(dir, 'idx')], io)).toBe(1);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toMatch(/has no usable documents \(1 input skipped: .*empty\.txt: empty file\)/);
  });

  it('skips and counts a binary file and a malformed JSONL line, and still builds', async () => {
    const dir = await corpusDir();
    await writeFile(join(dir, 'image.txt'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]));
    await writeFile(
      join(dir, 'more.jsonl'),
      '{"id":"a","title":"A","text":"Alpha text."}\n{not json}\n{"id":"b"}\n',
    );
    const io = captureIO(dir);
    const code = await run(['index', dir, '--method', 'bm25', '--out', outside(dir, 'idx')], io);
    expect(code).toBe(0);
    expect(io.err()).toMatch(/skipped .*image\.txt: binary content/);
    expect(io.err()).toMatch(/skipped .*more\.jsonl:2: not valid JSON/);
    expect(io.err()).toMatch(/skipped .*more\.jsonl:3: no "text" string field/);
    expect(io.err()).toMatch(/indexing 3 documents from 3 files \(3 skipped\)/);
  });

  it('rejects an unknown method, a bad config value and a bad config file', async () => {
    const dir = await corpusDir();
    let io = captureIO(dir);
    expect(await run(['index', dir, '--method', 'nope', '--out', outside(dir, 'i')], io)).toBe(1);
    expect(io.err()).toMatch(/Unknown method "nope"\. Available: naive-dense, bm25/);

    io = captureIO(dir, { GRAG_BUDGET: 'lots' });
    expect(await run(['query', dir, 'q'], io)).toBe(1);
    expect(io.err()).toMatch(
      /^grag: Bad environment variable GRAG_BUDGET: budget must be a positive integer/,
    );

    await writeFile(join(dir, 'grag.config.json'), '{"vectorIndex": "faiss"}');
    io = captureIO(dir);
    expect(await run(['methods'], io)).toBe(1);
    expect(io.err()).toMatch(/vectorIndex must be one of flat, hnsw, got "faiss"/);

    io = captureIO(dir);
    expect(await run(['index', dir, '--bogus'], io)).toBe(2);
    expect(io.err()).toMatch(/Unknown option '--bogus'/);
  });

  it('refuses to query a directory that is not an index, or an index of another format version', async () => {
    const dir = await tmp();
    let io = captureIO(dir);
    expect(await run(['query', dir, 'who?'], io)).toBe(1);
    expect(io.err()).toMatch(/is not a grag index/);

    for (const [name, method, formatVersion, refusal] of [
      ['old', 'bm25', 99, /format version 99; this version reads 1/],
      ['foreign', 'mystery-rag', 1, /holds a 'mystery-rag' index, which this grag does not know/],
    ] as const) {
      const index = join(dir, name);
      await writeIndexDir(index, { method, formatVersion, params: {}, providers: {} }, async () => {});
      io = captureIO(dir);
      expect(await run(['query', index, 'who?'], io)).toBe(1);
      expect(io.err()).toMatch(refusal);
    }
  });
});

describe('grag index and query', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await corpusDir();
  });

  it.each(['bm25', 'naive-dense'])(
    'builds a %s index offline and answers with cited sources',
    async (method) => {
      const out = outside(dir, `idx-${method}`);
      let io = captureIO(dir);
      expect(await run(['index', dir, '--method', method, '--out', out, '--vector-index', 'flat'], io)).toBe(
        0,
      );
      expect(io.err()).toMatch(/running offline/);
      io = captureIO(dir);
      expect(await run(['query', out, 'Which museum is in Oslo?', '--json'], io)).toBe(0);
      const result = JSON.parse(io.out());
      expect(result.method).toBe(method);
      expect(result.retrieval.items[0].source.docIds).toEqual(['oslo.txt']);
      expect(result.answer).toMatch(/Munch Museum/);
      expect(result.citations).toContain(result.retrieval.items[0].id);
      expect(result.retrieval.tokens).toBeGreaterThan(0);
    },
  );

  it('prints the answer, sources, token count and timing for people', async () => {
    const out = outside(dir, 'idx-text');
    await run(['index', dir, '--method', 'bm25', '--out', out, '-q'], captureIO(dir));
    const io = captureIO(dir);
    expect(await run(['query', out, 'Which rivers meet in Lyon?'], io)).toBe(0);
    expect(io.out()).toMatch(/^Q: Which rivers meet in Lyon\?\nA: .*Rhone/m);
    expect(io.out()).toMatch(/sources: \[lyon\.md#0\] lyon\.md/);
    expect(io.out()).toMatch(
      /Context: \d+ items, \d+ tokens \(bm25, retrieval [\d.]+ ms, answer [\d.]+ ms\)/,
    );
  });
});

describe('grag binary', () => {
  it('exits non-zero with one line and no stack trace on bad input', async () => {
    const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
    const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
    const tsconfig = fileURLToPath(new URL('../../../tsconfig.json', import.meta.url));
    const cwd = await tmp();
    await mkdir(join(cwd, 'c'));
    const result = await promisify(execFile)(
      tsx,
      ['--tsconfig', tsconfig, bin, 'index', join(cwd, 'c'), '--method', 'bm25', '--out', join(cwd, 'o')],
      {
        cwd,
        env: { PATH: process.env.PATH },
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^grag: The corpus at .* has no usable documents/),
    ]);
  });
});

describe('grag index --variant', () => {
  it('builds a ket-rag variant by name and queries it without repeating the variant', async () => {
    const dir = await corpusDir();
    const out = outside(dir, 'idx-keyword');
    let io = captureIO(dir);
    const code = await run(
      ['index', dir, '--method', 'ket-rag', '--variant', 'keyword-rag', '--out', out, '-q'],
      io,
    );
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    expect(JSON.stringify(manifest.params)).toMatch(/keyword-rag/);
    io = captureIO(dir);
    expect(await run(['query', out, 'Which museum is in Oslo?', '--json'], io)).toBe(0);
    const result = JSON.parse(io.out());
    expect(result.method).toBe('ket-rag');
    // Keyword-RAG (lambda = 0) uses no knowledge-graph context.
    expect(
      result.retrieval.items.every((i: { kind: string }) => i.kind !== 'entity' && i.kind !== 'relation'),
    ).toBe(true);
    expect(result.retrieval.context).toMatch(/Munch Museum/);
  });

  it('rejects an unknown variant in one line', async () => {
    const dir = await corpusDir();
    const io = captureIO(dir);
    expect(
      await run(['index', dir, '--method', 'ket-rag', '--variant', 'nope', '--out', outside(dir, 'x')], io),
    ).toBe(1);
    expect(io.err().trim().split('\n').at(-1)).toMatch(/^grag: .*nope/);
  });
});

describe('grag index on knowledge-graph triples', () => {
  async function tripleDir(): Promise<string> {
    const dir = await tmp();
    await writeFile(join(dir, 'entity2text.txt'), 'm1\tHeat\nm2\tMichael Mann\nm3\tAl Pacino\nm4\tThief\n');
    await writeFile(join(dir, 'relation2text.txt'), 'directed_by\tdirected by\nstarring\tstarring\n');
    await writeFile(
      join(dir, 'train.tsv'),
      'm1\tdirected_by\tm2\nm1\tstarring\tm3\nm4\tdirected_by\tm2\nbad line\n',
    );
    return dir;
  }

  it('indexes a triple directory with sg-rag, reporting skipped lines, and queries it', async () => {
    const dir = await tripleDir();
    const out = outside(dir, 'idx');
    let io = captureIO(dir);
    expect(await run(['index', dir, '--method', 'sg-rag', '--out', out], io)).toBe(0);
    expect(io.err()).toMatch(/indexing 3 triples over 4 named entities/);
    expect(io.err()).toMatch(/skipped .*train\.tsv:4/);
    io = captureIO(dir);
    expect(
      await run(['query', out, 'Which film starring Al Pacino was directed by Michael Mann?', '--json'], io),
    ).toBe(0);
    const result = JSON.parse(io.out());
    expect(result.method).toBe('sg-rag');
    expect(result.retrieval.context).toMatch(/Heat/);
  });

  it('refuses triples for a method that indexes text', async () => {
    const dir = await tripleDir();
    const io = captureIO(dir);
    expect(await run(['index', dir, '--method', 'bm25', '--out', outside(dir, 'idx')], io)).toBe(1);
    expect(io.err()).toMatch(
      /^grag: .* holds knowledge-graph triples; bm25 indexes text\. Use --method sg-rag/,
    );
  });
});
