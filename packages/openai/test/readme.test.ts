import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readmeSnippet } from '@grag/core/test';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { type FakeOpenAIServer, startFakeServer } from './fake-server.js';

let server: FakeOpenAIServer;
let dir: string;

beforeEach(async () => {
  server = await startFakeServer();
  dir = await mkdtemp(join(tmpdir(), 'grag-openai-readme-'));
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

it('runs the Use snippet of the README against a local OpenAI-compatible server', async () => {
  const snippet = await readmeSnippet(new URL('../README.md', import.meta.url));
  expect(snippet).toContain("createOpenAI({ baseURL: 'http://localhost:11434/v1'");
  vi.stubEnv('OPENAI_API_KEY', '');
  server.embed = (input) => Array.from({ length: 768 }, (_, i) => (i === 0 ? input.length : 0));
  const file = join(dir, 'snippet.ts');
  const code = snippet!.replace('http://localhost:11434/v1', server.baseURL);
  await writeFile(file, `${code}\nexport {};\n`);
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    await import(/* @vite-ignore */ pathToFileURL(file).href);
    expect(error).not.toHaveBeenCalled();
    expect(log.mock.calls).toEqual([['echo: What is graph RAG?', { inputTokens: 11, outputTokens: 7 }, 2]]);
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
  expect(server.requestsTo('chat')[0]?.body.model).toBe('llama3.1');
  expect(server.requestsTo('embeddings')[0]?.body).toEqual({
    model: 'nomic-embed-text',
    input: ['graph', 'retrieval'],
    encoding_format: 'float',
  });
});

it('prints one line, not a stack trace, when the endpoint of the Use snippet refuses the call', async () => {
  const snippet = await readmeSnippet(new URL('../README.md', import.meta.url));
  vi.stubEnv('OPENAI_API_KEY', '');
  server.script('chat', { status: 401, json: { error: { message: 'Incorrect API key provided' } } });
  const file = join(dir, 'snippet-down.ts');
  await writeFile(file, `${snippet!.replace('http://localhost:11434/v1', server.baseURL)}\nexport {};\n`);
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    await import(/* @vite-ignore */ pathToFileURL(file).href);
    expect(error.mock.calls).toEqual([[expect.stringMatching(/^error: @grag\/openai: chat request .*401/)]]);
    expect(process.exitCode).toBe(1);
  } finally {
    error.mockRestore();
    process.exitCode = undefined;
  }
});
