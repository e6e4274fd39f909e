/** `grag serve`: in process and as a real process, over real HTTP on 127.0.0.1. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest as raw } from '../../server/test/http.js';
import { run } from '../src/index.js';
import { CountingServer, MODEL_FLAGS } from './counting-server.js';
import { captureIO, LYON_NOTE, OSLO_NOTE, writeFiles } from './helpers.js';
import { withOutput } from './index-child.js';

let root: string;
let bm25Dir: string;
let denseDir: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-cli-serve-'));
  const corpus = join(root, 'corpus');
  await writeFiles(corpus, { 'lyon.md': `# Lyon\n\n${LYON_NOTE}`, 'oslo.md': `# Oslo\n\n${OSLO_NOTE}` });
  bm25Dir = join(root, 'bm25');
  denseDir = join(root, 'dense');
  for (const [method, out] of [
    ['bm25', bm25Dir],
    ['naive-dense', denseDir],
  ] as const) {
    const io = captureIO(root);
    const code = await run(
      ['index', corpus, '--method', method, '--out', out, '--vector-index', 'flat', '-q'],
      io,
    );
    expect(code, io.err()).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const URL_LINE = /^grag serve: (.+) at (http:\/\/127\.0\.0\.1:\d+)( \(bearer token required\))?\n$/;

/** Run `grag serve <argv>` in process until `check(url)` is done, then stop it; returns what it printed. */
async function serving(
  argv: string[],
  check: (url: string) => Promise<void>,
  env: Record<string, string> = {},
  line = URL_LINE,
): Promise<{ out: string; err: string }> {
  const controller = new AbortController();
  const io = { ...captureIO(root, env), signal: controller.signal };
  const running = run(['serve', ...argv], io);
  let failed: unknown;
  try {
    await until(() => line.test(io.out()) || io.err() !== '');
    const match = line.exec(io.out());
    if (!match) throw new Error(`grag serve did not start: ${io.err()}`);
    await check(match[2]!);
  } catch (error) {
    failed = error;
  }
  controller.abort();
  const code = await running;
  if (failed) throw failed;
  expect(code, io.err()).toBe(0);
  return { out: io.out(), err: io.err() };
}

/** Index the corpus with BM25 into `folder`/`name` for each of `names`. */
async function indexBm25Into(folder: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const io = captureIO(root);
    const argv = ['index', join(root, 'corpus'), '--method', 'bm25', '--out', join(folder, name), '-q'];
    expect(await run(argv, io), io.err()).toBe(0);
  }
}

/** The museum question to POST /v1/query at `url`, with `headers`: the status and the body. */
async function askMuseum(url: string, headers: Record<string, string> = {}) {
  const question = { question: 'Which museum is in Oslo?', method: 'bm25', topK: 2 };
  const res = await fetch(`${url}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(question),
  });
  return { status: res.status, body: (await res.json()) as { retrieval: { items: unknown[] } } };
}

/**
 * Serve the BM25 index on the server's own thread and ask the museum question, then serve it with
 * `flags` and ask it `times` times: each answer is a 200 with the same items.
 */
async function expectSameAnswers(flags: string[], times: number, headers: Record<string, string> = {}) {
  let inProcess: Awaited<ReturnType<typeof askMuseum>> | undefined;
  await serving([bm25Dir, '--port', '0', '--no-explorer'], async (url) => {
    inProcess = await askMuseum(url, headers);
  });
  await serving([bm25Dir, '--port', '0', '--no-explorer', ...flags], async (url) => {
    for (let i = 0; i < times; i++) {
      const answer = await askMuseum(url, headers);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.retrieval.items).toEqual(inProcess?.body.retrieval.items);
    }
  });
}

describe('grag serve in process', () => {
  it('serves every index given, prints one line with the URL, and stops when aborted', async () => {
    const controller = new AbortController();
    const io = { ...captureIO(root), signal: controller.signal };
    const running = run(['serve', bm25Dir, denseDir, '--port', '0', '--no-explorer'], io);
    await until(() => URL_LINE.test(io.out()));
    const [, names, url] = URL_LINE.exec(io.out())!;
    expect(names).toBe('bm25, naive-dense');
    const indexes = (await (await fetch(`${url}/v1/indexes`)).json()) as { indexes: { name: string }[] };
    expect(indexes.indexes.map((ix) => ix.name)).toEqual(['bm25', 'naive-dense']);
    const res = await fetch(`${url}/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        question: 'Which museum is in Oslo?',
        method: 'naive-dense',
        topK: 1,
        answer: true,
      }),
    });
    const body = (await res.json()) as {
      retrieval: { items: { source: { docIds: string[] } }[] };
      answer: unknown;
    };
    expect(res.status).toBe(200);
    expect(body.retrieval.items[0]!.source.docIds).toEqual(['oslo.md']);
    expect(body.answer).toBeDefined();
    const doc = (await (await fetch(`${url}/v1/documents/oslo.md?method=bm25`)).json()) as { text: string };
    // The Markdown loader keeps the heading's text and drops its markup.
    expect(doc.text).toBe('Oslo\n\nOslo is the capital of Norway. The Munch Museum is in Oslo.');
    expect((await fetch(`${url}/`)).status).toBe(404);
    controller.abort();
    expect(await running).toBe(0);
    expect(io.err()).toContain('grag serve: SIGINT, stopping.');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('requires the token from GRAG_TOKEN when it is set', async () => {
    const controller = new AbortController();
    const io = { ...captureIO(root, { GRAG_TOKEN: 'env-token-1' }), signal: controller.signal };
    const running = run(['serve', bm25Dir, '--port', '0', '-q'], io);
    await until(() => URL_LINE.test(io.out()));
    const [, , url, required] = URL_LINE.exec(io.out())!;
    expect(required).toBe(' (bearer token required)');
    expect(io.out()).not.toContain('env-token-1');
    expect((await fetch(`${url}/v1/indexes`)).status).toBe(401);
    expect(
      (await fetch(`${url}/v1/indexes`, { headers: { authorization: 'Bearer env-token-1' } })).status,
    ).toBe(200);
    controller.abort();
    expect(await running).toBe(0);
  });

  it('refuses a directory that is not an index in one line, with a non-zero exit', async () => {
    const io = captureIO(root);
    expect(await run(['serve', join(root, 'corpus'), '--port', '0'], io)).toBe(1);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toMatch(/^grag: .*corpus is not a grag index: it has no manifest\.json/);
    const missing = captureIO(root);
    expect(await run(['serve', join(root, 'nope'), '--port', '0'], missing)).toBe(1);
    expect(missing.err()).toMatch(/^grag: Index directory .*nope does not exist\./);
  });

  it('refuses a bad port, no directory, and two indexes of one method', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['serve', bm25Dir, '--port', '70000'],
        /^grag: Bad --port: expected an integer from 0 to 65535, got "70000"\.\n$/,
      ],
      [['serve'], /^grag: Missing index directory\. Usage: grag serve <index-dir>\.\.\./],
      [
        ['serve', bm25Dir, bm25Dir, '--port', '0'],
        /both hold a 'bm25' index; give each a name \(put them in one folder and serve it with openIndexFolder, grag serve --dir <folder>\)\.\n$/,
      ],
    ];
    for (const [argv, message] of cases) {
      const io = captureIO(root);
      expect(await run(argv, io)).toBe(1);
      expect(io.err()).toMatch(message);
    }
  });

  it('serves every index of a --dir folder under its folder name, and writes to them over HTTP', async () => {
    const folder = join(root, 'team');
    await indexBm25Into(folder, ['alpha', 'beta']);
    await mkdir(join(folder, 'drafts'));
    const { out, err } = await serving(['--dir', folder, '--port', '0', '--no-explorer'], async (url) => {
      const listed = (await (await fetch(`${url}/v1/indexes`)).json()) as {
        indexes: { name: string; method: string }[];
      };
      expect(listed.indexes.map((ix) => [ix.name, ix.method])).toEqual([
        ['alpha', 'bm25'],
        ['beta', 'bm25'],
      ]);
      const post = (path: string, body: unknown) =>
        fetch(`${url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const upload = await post('/v1/indexes/beta/documents', {
        documents: [{ id: 'bergen.md', text: 'Bergen is a rainy harbour city in Norway.' }],
      });
      expect(upload.status).toBe(202);
      const created = await post('/v1/indexes', {
        name: 'gamma',
        method: 'naive-dense',
        documents: [{ id: 'turin.md', text: 'Turin lies on the Po river in Italy.' }],
      });
      expect(created.status).toBe(202);
      for (const job of [await upload.json(), await created.json()] as { id: string }[]) {
        const events = await (await fetch(`${url}/v1/jobs/${job.id}/events`)).text();
        expect(events).toMatch(/event: end\ndata: \{[^\n]*"status":"done"/);
      }
      const asked = (await (
        await post('/v1/indexes/beta/query', { question: 'rainy harbour city' })
      ).json()) as {
        retrieval: { items: { source: { docIds: string[] } }[] };
      };
      expect(asked.retrieval.items[0]!.source.docIds).toEqual(['bergen.md']);
      const gamma = (await (await post('/v1/indexes/gamma/query', { question: 'Po river' })).json()) as {
        index: string;
      };
      expect(gamma.index).toBe('gamma');
    });
    expect(out).toMatch(/^grag serve: alpha, beta at http/);
    expect(err).toContain(
      `grag serve: skipped ${join(folder, 'drafts')}: no manifest.json: not a grag index`,
    );
  });

  it('answers retrievals on worker threads with --workers, the same as on its own thread', async () => {
    await expectSameAnswers(['--workers', '2'], 3);
    const io = captureIO(root);
    expect(await run(['serve', bm25Dir, '--workers', 'many'], io)).toBe(1);
    expect(io.err()).toMatch(/Bad --workers: expected auto or an integer/);
  });

  it('serves the port from two processes with --processes 2, the same answers as one', async () => {
    // Quiet: the replicas take a few seconds to start, and serving() stops at the first stderr line.
    await expectSameAnswers(['--processes', '2', '--quiet'], 4, { connection: 'close' });
    const io = captureIO(root);
    expect(await run(['serve', bm25Dir, '--processes', 'many'], io)).toBe(1);
    expect(io.err()).toMatch(/Bad --processes: expected auto or an integer from 1 to 256/);
    const store = captureIO(root);
    expect(
      await run(['serve', '--store', 'postgres://127.0.0.1:1/none', 'x', '--processes', '2'], store),
    ).toBe(1);
    expect(store.err()).toContain('--processes above 1 serves index directories (paths or --dir) only');
  }, 60_000);

  it('answers on worker threads with the OpenAI-compatible models of its configuration', async () => {
    const models = new CountingServer();
    await models.start();
    try {
      const env = { OPENAI_BASE_URL: models.url, OPENAI_API_KEY: 'test-key' };
      const out = join(root, 'dense-openai');
      const io = captureIO(root, env);
      const argv = [
        'index',
        join(root, 'corpus'),
        '--method',
        'naive-dense',
        '--out',
        out,
        '-q',
        ...MODEL_FLAGS,
      ];
      expect(await run(argv, io), io.err()).toBe(0);
      const ask = async (url: string) => {
        const res = await fetch(`${url}/v1/query`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ question: 'Which museum is in Oslo?', topK: 1 }),
        });
        return { status: res.status, body: (await res.json()) as { retrieval: { items: unknown[] } } };
      };
      let inProcess: Awaited<ReturnType<typeof ask>> | undefined;
      await serving(
        [out, '--port', '0', '--no-explorer', ...MODEL_FLAGS],
        async (url) => {
          inProcess = await ask(url);
        },
        env,
      );
      const before = models.received.filter((c) => c.kind === 'embeddings').length;
      await serving(
        [out, '--port', '0', '--no-explorer', '--workers', '1', ...MODEL_FLAGS],
        async (url) => {
          const pooled = await ask(url);
          expect(pooled.status, JSON.stringify(pooled.body)).toBe(200);
          expect(pooled.body.retrieval.items).toEqual(inProcess?.body.retrieval.items);
        },
        env,
      );
      // The worker embedded the question at the configured endpoint.
      expect(models.received.filter((c) => c.kind === 'embeddings').length).toBeGreaterThan(before);
    } finally {
      await models.stop();
    }
  });

  it('scopes tokens to workspaces from a --tokens file', async () => {
    const folder = join(root, 'scoped');
    await indexBm25Into(folder, ['north', 'south']);
    const file = join(root, 'tokens.json');
    await writeFile(
      file,
      JSON.stringify({
        tokens: [
          { token: 'north-read', access: 'read', workspace: 'n' },
          { token: 'boss', access: 'admin' },
        ],
        workspaces: { n: ['north'], s: ['south'] },
      }),
    );
    const { out } = await serving(
      ['--dir', folder, '--tokens', file, '--port', '0', '--no-explorer'],
      async (url) => {
        const names = async (token: string) =>
          (
            (await (
              await fetch(`${url}/v1/indexes`, { headers: { authorization: `Bearer ${token}` } })
            ).json()) as {
              indexes: { name: string }[];
            }
          ).indexes.map((ix) => ix.name);
        expect(await names('north-read')).toEqual(['north']);
        expect(await names('boss')).toEqual(['north', 'south']);
        expect((await fetch(`${url}/v1/indexes`)).status).toBe(401);
        const south = await fetch(`${url}/v1/indexes/south`, {
          headers: { authorization: 'Bearer north-read' },
        });
        expect(south.status).toBe(404);
      },
    );
    expect(out).toContain('(bearer token required)');
    const bad = captureIO(root);
    await writeFile(file, '{"tokens": []}');
    expect(await run(['serve', '--dir', folder, '--tokens', file, '--port', '0'], bad)).toBe(1);
    expect(bad.err()).toMatch(/^grag: Bad --tokens .*tokens\.json: expected \{"tokens": \[/);
  });

  it('lists serve and its options in --help', async () => {
    const io = captureIO(root);
    expect(await run(['serve', '--help'], io)).toBe(0);
    expect(io.out()).toContain('serve <index-dir>... | --dir <folder>');
    expect(io.out()).toContain('--dir <folder>');
    expect(io.out()).toContain('--no-explorer');
    expect(io.out()).toContain('$GRAG_TOKEN');
    expect(io.out()).toContain('--allowed-host <h>');
    expect(io.out()).toContain('--cors <origin>');
  });
});

describe('grag serve against web pages', () => {
  it('refuses a non-loopback --host without a token in one line, before loading anything', async () => {
    for (const host of ['0.0.0.0', '::']) {
      // The index directory does not even exist: the host is checked first.
      for (const dir of [bm25Dir, join(root, 'nope')]) {
        const io = captureIO(root);
        expect(await run(['serve', dir, '--host', host, '--port', '0'], io)).toBe(1);
        expect(io.out()).toBe('');
        expect(io.err()).toBe(
          `grag: --host ${host} is not a loopback address, so anyone who can reach it could read and query these indexes; add --token <t> (or set GRAG_TOKEN), or bind 127.0.0.1.\n`,
        );
      }
    }
  });

  it('serves 0.0.0.0 with a token (--token or GRAG_TOKEN), answering any Host', async () => {
    const line = /^grag serve: (.+) at (http:\/\/0\.0\.0\.0:\d+) \(bearer token required\)\n$/;
    for (const [argv, env] of [
      [['--token', 'tok-9a1f'], {}],
      [[], { GRAG_TOKEN: 'tok-9a1f' }],
    ] as const) {
      const { err } = await serving(
        [bm25Dir, '--host', '0.0.0.0', '--port', '0', '--no-explorer', ...argv],
        async (url) => {
          const local = `http://127.0.0.1:${new URL(url).port}`;
          const auth = { authorization: 'Bearer tok-9a1f' };
          expect((await raw(local, '/v1/indexes')).status).toBe(401);
          expect(
            (await raw(local, '/v1/indexes', { headers: { ...auth, host: 'grag.lan:8787' } })).status,
          ).toBe(200);
        },
        env,
        line,
      );
      expect(err).toContain('grag serve: listening on 0.0.0.0, so anyone who can reach it and has the token');
    }
  });

  it('answers 421 to a foreign Host, 415 to a text/plain query and 403 to a foreign Origin, with no CORS headers', async () => {
    await serving([bm25Dir, '--port', '0'], async (url) => {
      const port = new URL(url).port;
      const foreign = await raw(url, '/v1/indexes', { headers: { host: `attacker.example:${port}` } });
      expect(foreign.status).toBe(421);
      expect(JSON.parse(foreign.body).error.code).toBe('misdirected_request');
      const page = await raw(url, '/', { headers: { host: `attacker.example:${port}` } });
      expect(page.status).toBe(421);
      for (const host of [`localhost:${port}`, `[::1]:${port}`, 'localhost']) {
        expect((await raw(url, '/v1/indexes', { headers: { host } })).status, host).toBe(200);
      }
      const text = await raw(url, '/v1/query', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ question: 'Which museum is in Oslo?' }),
      });
      expect(text.status).toBe(415);
      expect(text.body.trim().split('\n')).toHaveLength(1);
      const bodiless = await raw(url, '/v1/query', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      expect(bodiless.status).toBe(400);
      expect(JSON.parse(bodiless.body).error.message).toBe(
        'The request has no body; send {"question": "<your question>"} as JSON.',
      );
      for (const path of ['/v1/indexes', '/v1/documents/oslo.md']) {
        const res = await raw(url, path, { headers: { origin: 'http://127.0.0.1:1' } });
        expect(res.status, path).toBe(403);
        expect(res.body).not.toContain('Oslo');
        expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      }
      const own = await raw(url, '/v1/indexes', { headers: { origin: url } });
      expect(own.status).toBe(200);
      expect(Object.keys(own.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    });
  });

  it('answers the hosts of --allowed-host and the origins of --cors (repeated or comma-separated)', async () => {
    const argv = [
      bm25Dir,
      '--port',
      '0',
      '--allowed-host',
      'grag.test,proxy.test:8443',
      '--allowed-host',
      'other.test',
      '--cors',
      'http://app.test:3000',
      '--cors',
      'https://b.test,https://c.test',
    ];
    await serving(argv, async (url) => {
      for (const host of ['grag.test', 'grag.test:80', 'proxy.test:8443', 'other.test:1234']) {
        expect((await raw(url, '/v1/indexes', { headers: { host } })).status, host).toBe(200);
      }
      for (const host of ['proxy.test:9000', 'attacker.example']) {
        expect((await raw(url, '/v1/indexes', { headers: { host } })).status, host).toBe(421);
      }
      for (const origin of ['http://app.test:3000', 'https://b.test', 'https://c.test']) {
        const preflight = await raw(url, '/v1/query', {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
          },
        });
        expect(preflight.status, origin).toBe(204);
        expect(preflight.headers['access-control-allow-origin']).toBe(origin);
        const list = await raw(url, '/v1/indexes', { headers: { origin } });
        expect(list.headers['access-control-allow-origin']).toBe(origin);
      }
      const other = await raw(url, '/v1/query', {
        method: 'OPTIONS',
        headers: { origin: 'http://app.test:3001', 'access-control-request-method': 'POST' },
      });
      expect(other.status).toBe(403);
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  it('refuses a bad --cors or --allowed-host value in one line', async () => {
    const cases: [string[], string][] = [
      [
        ['--cors', 'https://app.test/path'],
        'grag: Bad CORS origin "https://app.test/path": give an exact origin, scheme://host[:port] without a path, e.g. https://app.example.com.\n',
      ],
      [
        ['--allowed-host', 'http://grag.test'],
        'grag: Bad allowed host "http://grag.test": give a host name or address with an optional :port, e.g. grag.example.com or grag.example.com:8443.\n',
      ],
      [
        ['--cors', 'https://a.test,'],
        'grag: Bad --cors: an empty value; give one or more, comma-separated.\n',
      ],
    ];
    for (const [flags, message] of cases) {
      const io = captureIO(root);
      expect(await run(['serve', bm25Dir, '--port', '0', '-q', ...flags], io)).toBe(1);
      expect(io.err()).toBe(message);
    }
  });
  it('refuses --jobs-dir beside --dir, and --no-resume-jobs without a journal, in one line', async () => {
    const cases: [string[], string][] = [
      [
        ['--dir', join(root, 'folder'), '--jobs-dir', join(root, 'jobs')],
        'grag: --jobs-dir: a server on --dir journals its jobs in that folder already; drop --jobs-dir.\n',
      ],
      [
        [bm25Dir, '--no-resume-jobs'],
        'grag: --no-resume-jobs: this server keeps no job journal, so no job outlives it; give --dir <folder> or --jobs-dir <folder>, or drop the flag.\n',
      ],
    ];
    for (const [flags, message] of cases) {
      const io = captureIO(root);
      expect(await run(['serve', '--port', '0', '-q', ...flags], io)).toBe(1);
      expect(io.err()).toBe(message);
    }
    expect(existsSync(join(root, 'jobs'))).toBe(false);
  });
});

describe('grag serve as a process', () => {
  const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
  const repo = fileURLToPath(new URL('../../../', import.meta.url));

  function start(args: string[]): ChildProcess & { out: () => string; err: () => string } {
    return withOutput(
      spawn(process.execPath, ['--import', 'tsx', bin, 'serve', ...args], {
        cwd: repo,
        env: {
          PATH: process.env.PATH,
          TSX_TSCONFIG_PATH: join(repo, 'tsconfig.json'),
          GRAG_PROVIDER: 'offline',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  }

  function exited(child: ChildProcess): Promise<number | null> {
    return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  it('refuses --host 0.0.0.0 without a token: one line on stderr, exit code 1', async () => {
    const child = start([bm25Dir, '--host', '0.0.0.0', '--port', '0']);
    expect(await exited(child)).toBe(1);
    expect(child.out()).toBe('');
    expect(child.err()).toMatch(
      /^grag: --host 0\.0\.0\.0 is not a loopback address, .*add --token <t> \(or set GRAG_TOKEN\), or bind 127\.0\.0\.1\.\n$/,
    );
  }, 60_000);

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'answers over HTTP, then closes cleanly on %s',
    async (signal) => {
      const child = start([bm25Dir, '--port', '0', '--token', 'proc-token']);
      const exit = exited(child);
      try {
        await until(() => URL_LINE.test(child.out()), 30_000);
      } catch (error) {
        child.kill('SIGKILL');
        throw new Error(`grag serve did not start: ${child.err()}`, { cause: error });
      }
      const [, , url] = URL_LINE.exec(child.out())!;
      expect((await fetch(`${url}/v1/indexes`)).status).toBe(401);
      const res = await fetch(`${url}/v1/query`, {
        method: 'POST',
        headers: { authorization: 'Bearer proc-token', 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'Where do the Rhone and the Saone meet?', topK: 1 }),
      });
      const body = (await res.json()) as { retrieval: { items: { source: { docIds: string[] } }[] } };
      expect(body.retrieval.items[0]!.source.docIds).toEqual(['lyon.md']);
      child.kill(signal);
      expect(await exit).toBe(0);
      expect(child.out().split('\n').filter(Boolean)).toHaveLength(1);
      expect(child.err()).toContain(`grag serve: ${signal}, stopping.`);
    },
    60_000,
  );
});
