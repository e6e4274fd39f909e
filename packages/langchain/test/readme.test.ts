import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { runLoggedSnippet } from '@grag/core/test';
import { expect, test } from 'vitest';

const langchainCore = new URL('../node_modules/@langchain/core/', import.meta.url);

/** Every ```ts block under `## Use` of the README (consumer-check runs them all). */
async function useSnippets(): Promise<string[]> {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('## Use');
  const use = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...use.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/**
 * The snippet with its `@langchain/core/...` imports pointed at this package's copy (ESM build, as
 * the package's `exports` map gives it): it runs from a temporary directory.
 */
async function localImports(snippet: string): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('package.json', langchainCore), 'utf8')) as {
    exports: Record<string, { import?: { default?: string } }>;
  };
  return snippet.replace(/from '@langchain\/core\/([^']+)'/g, (_, sub: string) => {
    const target = pkg.exports[`./${sub}`]?.import?.default;
    if (!target) throw new Error(`readme test: @langchain/core exports no ./${sub}`);
    return `from '${fileURLToPath(new URL(target, langchainCore))}'`;
  });
}

test('the README has two Use snippets, each with expected outputs', async () => {
  const snippets = await useSnippets();
  expect(snippets).toHaveLength(2);
  for (const snippet of snippets) expect(snippet).toMatch(/^\/\/ → /m);
});

test('the retriever snippet of the README runs and prints what its comments say', async () => {
  const [retriever] = await useSnippets();
  const { printed, expected } = await runLoggedSnippet(await localImports(retriever!));
  expect(expected).toHaveLength(3);
  expect(printed).toEqual(expected);
});

test('the adapters snippet of the README runs and prints what its comments say', async () => {
  const [, adapters] = await useSnippets();
  const { printed, expected } = await runLoggedSnippet(await localImports(adapters!));
  expect(expected).toHaveLength(2);
  expect(printed).toEqual(expected);
});
