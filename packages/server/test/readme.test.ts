import { readmeSnippet, runLoggedSnippet } from '@grag/core/test';
import { expect, test } from 'vitest';

test('the Use snippet of the README runs a server, queries it with the typed client (whole and streamed), and prints what its comments say', async () => {
  const snippet = await readmeSnippet(new URL('../README.md', import.meta.url));
  const { printed, expected } = await runLoggedSnippet(snippet);
  expect(expected).toHaveLength(4);
  expect(printed).toEqual(expected);
});
