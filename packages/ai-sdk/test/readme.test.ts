import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readmeSnippet } from '@grag/core/test';
import { expect, it } from 'vitest';

const readme = new URL('../README.md', import.meta.url);

/**
 * Run the snippet as a module and collect what it logs. The module is written inside this package
 * (not the system temp directory) so its `ai/test` import resolves to this package's `ai`.
 */
async function runSnippet(code: string): Promise<unknown[]> {
  const dir = await mkdtemp(join(fileURLToPath(new URL('.', import.meta.url)), '.snippet-'));
  const file = join(dir, 'snippet.ts');
  await writeFile(file, `${code}\nexport {};\n`);
  const printed: unknown[] = [];
  const log = console.log;
  console.log = (value: unknown) => {
    printed.push(JSON.parse(JSON.stringify(value)));
  };
  try {
    await import(/* @vite-ignore */ pathToFileURL(file).href);
    return printed;
  } finally {
    console.log = log;
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every ```ts block under `## Use` (up to the next `## ` heading), as consumer-check runs them. */
async function useSnippets(): Promise<string[]> {
  const text = await readFile(readme, 'utf8');
  const at = text.indexOf('\n## Use\n');
  const rest = text.slice(at + 1);
  const end = rest.slice(1).search(/^## /m);
  const use = end < 0 ? rest : rest.slice(0, end + 1);
  return [...use.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

it('runs the Use snippet of the README on the AI SDK mock models and prints what its comments say', async () => {
  const snippet = await readmeSnippet(readme);
  expect(snippet).toContain("from 'ai/test'");
  const expected = [...snippet.matchAll(/^\/\/ → (.*)$/gm)].map((m) => JSON.parse(m[1]!) as unknown);
  expect(expected).toHaveLength(3);
  expect(await runSnippet(snippet)).toEqual(expected);
});

it('runs the tool, middleware and UI message stream snippets under Use offline, and they print what their comments say', async () => {
  const snippets = await useSnippets();
  expect(snippets).toHaveLength(4);
  for (const snippet of snippets.slice(1)) {
    const expected = [...snippet.matchAll(/^\/\/ → (.*)$/gm)].map((m) => JSON.parse(m[1]!) as unknown);
    expect(expected.length).toBeGreaterThan(0);
    expect(await runSnippet(snippet)).toEqual(expected);
  }
});

it('names ai and the snippets’ method in the Install block, so their imports install', async () => {
  const text = await readFile(readme, 'utf8');
  const install = /## Install\s+```sh\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
  expect(
    install
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/)),
  ).toEqual([
    ['npm', 'install', '@grag/ai-sdk', '@grag/core', 'ai'],
    ['npm', 'install', '@grag/naive-rag'],
  ]);
});
