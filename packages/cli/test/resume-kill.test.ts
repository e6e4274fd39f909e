/**
 * Issue 3's resume contract, end to end: `grag index` against a local OpenAI-compatible server is
 * killed with SIGKILL midway, the same command runs again, and the test checks that no model call
 * the first run had completed is sent again and that the index equals an uninterrupted build's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashedBagOfWords } from '@grag/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCorpusPath, run } from '../src/index.js';
import { captureIO } from './helpers.js';

interface Call {
  key: string;
  kind: 'chat' | 'embeddings';
}

/**
 * An OpenAI-compatible server with deterministic answers: chat answers name the capitalized words
 * of the last user message as entities (JSON every structured parser reads), embeddings are hashed
 * bags of words. It logs the calls it completed (the whole response written), and can hold every
 * request after a given number of completed chat calls, so a client is stopped at a known point.
 */
class CountingServer {
  readonly received: Call[] = [];
  readonly completed: Call[] = [];
  holdAfterChat: number | undefined;
  readonly #held = new Set<ServerResponse>();
  readonly #server: Server;
  url = '';

  constructor() {
    this.#server = createServer((req, res) => this.#handle(req, res));
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    for (const res of this.#held) res.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  reset(): void {
    this.received.length = 0;
    this.completed.length = 0;
    this.holdAfterChat = undefined;
    for (const res of this.#held) res.destroy();
    this.#held.clear();
  }

  get completedChats(): number {
    return this.completed.filter((c) => c.kind === 'chat').length;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const kind = req.url?.endsWith('/embeddings') ? 'embeddings' : 'chat';
      // biome-ignore lint/suspicious/noExplicitAny: request bodies
      const body = JSON.parse(raw) as any;
      const call: Call = { kind, key: createHash('sha256').update(raw).digest('hex') };
      this.received.push(call);
      if (this.holdAfterChat !== undefined && this.completedChats >= this.holdAfterChat) {
        this.#held.add(res);
        return;
      }
      const payload = kind === 'chat' ? chatAnswer(body) : embeddingAnswer(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload), () => this.completed.push(call));
    });
  }
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies
function chatAnswer(body: any): unknown {
  const messages = body.messages as { role: string; content: string }[];
  const last = messages.at(-1)?.content ?? '';
  const names = [...new Set(last.match(/\b[A-Z][a-z]+(?: [A-Z][a-z]+)*\b/g) ?? [])].slice(0, 6);
  // A follow-up turn (gleaning, repair) finds nothing more.
  const first = messages.filter((m) => m.role === 'assistant').length === 0;
  const entities = first
    ? names.map((name) => ({ name, type: 'organization', description: `${name} appears in the text.` }))
    : [];
  const relations = entities.slice(1).map((e, i) => ({
    source: entities[i]!.name,
    target: e.name,
    description: `${entities[i]!.name} is mentioned with ${e.name}.`,
    strength: 5,
  }));
  const content = JSON.stringify({
    entities,
    relations,
    title: names[0] ?? 'Text',
    description: last.slice(0, 60),
  });
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model: body.model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: Math.ceil(JSON.stringify(messages).length / 4), completion_tokens: 20 },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies
function embeddingAnswer(body: any): unknown {
  const inputs = body.input as string[];
  return {
    object: 'list',
    model: body.model,
    data: inputs.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: Array.from(hashedBagOfWords(text, 16)),
    })),
    usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
  };
}

const MODEL_FLAGS = [
  '--embedding-model',
  'test-embed',
  '--embedding-dimensions',
  '16',
  '--chat-model',
  'test-chat',
  '--vector-index',
  'flat',
];

const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
const repo = fileURLToPath(new URL('../../../', import.meta.url));

function grag(
  server: CountingServer,
  out: string,
  cacheDir: string,
): ChildProcess & { stderrText: () => string } {
  // One process (node with the tsx loader), so SIGKILL stops the build itself, not a wrapper.
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      bin,
      'index',
      demoCorpusPath(),
      '--method',
      'ket-rag',
      '--out',
      out,
      '--cache-dir',
      cacheDir,
      '--concurrency',
      '2',
      ...MODEL_FLAGS,
    ],
    {
      cwd: repo,
      env: {
        PATH: process.env.PATH,
        TSX_TSCONFIG_PATH: join(repo, 'tsconfig.json'),
        OPENAI_BASE_URL: server.url,
        OPENAI_API_KEY: 'test-key',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return Object.assign(child, { stderrText: () => stderr });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every file of an index directory; the manifest without its write time. */
async function readIndex(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    let text = (await readFile(path)).toString('base64');
    if (entry.name === 'manifest.json') {
      const { createdAt: _t, ...rest } = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
      text = JSON.stringify(rest);
    }
    files.set(relative(dir, path), text);
  }
  return files;
}

describe('grag index killed with SIGKILL and run again', () => {
  const server = new CountingServer();
  let root = '';
  beforeAll(async () => {
    await server.start();
    root = await mkdtemp(join(tmpdir(), 'grag-kill-'));
  });
  afterAll(async () => {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('repeats no completed model call, writes the index an uninterrupted build writes, and a rebuild calls nothing', async () => {
    // Uninterrupted reference build, with its own cache.
    const reference = grag(server, join(root, 'reference'), join(root, 'cache-reference'));
    expect((await exited(reference)).code, reference.stderrText()).toBe(0);
    const referenceCalls = new Set(server.received.map((c) => c.key));
    const referenceChats = server.received.filter((c) => c.kind === 'chat').length;
    expect(referenceChats).toBeGreaterThan(10);

    // The same build, killed once a third of its chat calls have completed. Requests after that
    // point are held unanswered; the pause lets the client store the answers it has.
    server.reset();
    const stopAt = Math.floor(referenceChats / 3);
    server.holdAfterChat = stopAt;
    const out = join(root, 'index');
    const cacheDir = join(root, 'cache');
    const first = grag(server, out, cacheDir);
    await until(() => server.completedChats >= stopAt, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    first.kill('SIGKILL');
    expect((await exited(first)).signal).toBe('SIGKILL');
    const completedBeforeKill = new Set(server.completed.map((c) => c.key));
    expect(completedBeforeKill.size).toBeGreaterThanOrEqual(stopAt);
    expect(existsSync(join(out, 'manifest.json'))).toBe(false);

    // Run the same command again.
    server.reset();
    const second = grag(server, out, cacheDir);
    expect((await exited(second)).code, second.stderrText()).toBe(0);
    const resumedCalls = server.received.map((c) => c.key);
    const repeated = resumedCalls.filter((key) => completedBeforeKill.has(key));
    expect(repeated).toEqual([]);
    // Together the two runs made exactly the reference build's calls.
    expect(new Set([...completedBeforeKill, ...resumedCalls])).toEqual(referenceCalls);
    // Stages finished before the kill were restored, not redone.
    expect(second.stderrText()).toMatch(
      /grag: resumed: \d+ finished stages restored from checkpoints \(chunk, .*embed-chunks/,
    );

    expect(await readIndex(out)).toEqual(await readIndex(join(root, 'reference')));
    // Checkpoints are dropped once the index is written; the call cache stays.
    expect(await readdir(join(cacheDir, 'builds'))).toEqual([]);
    expect((await readdir(join(cacheDir, 'calls'))).length).toBeGreaterThan(0);

    // Rebuilding with the same inputs makes no model call at all.
    server.reset();
    const rebuild = grag(server, join(root, 'rebuilt'), cacheDir);
    expect((await exited(rebuild)).code, rebuild.stderrText()).toBe(0);
    expect(server.received).toEqual([]);
    expect(await readIndex(join(root, 'rebuilt'))).toEqual(await readIndex(join(root, 'reference')));

    // An estimate over the warm cache finds every call there: nothing left to pay.
    const io = captureIO(root, { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test-key' });
    const args = ['index', demoCorpusPath(), '--method', 'ket-rag', '--estimate', '--json', '-q'];
    expect(await run([...args, '--cache-dir', cacheDir, ...MODEL_FLAGS], io), io.err()).toBe(0);
    const estimate = JSON.parse(io.out()) as {
      total: { chatCalls: number; embeddedValues: number; cacheHits: number; usd: number };
    };
    expect(estimate.total).toMatchObject({ chatCalls: 0, embeddedValues: 0, usd: 0 });
    expect(estimate.total.cacheHits).toBeGreaterThanOrEqual(referenceChats);
    expect(server.received).toEqual([]);
  }, 120_000);
});
