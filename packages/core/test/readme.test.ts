import { expect, test } from 'vitest';
import { readmeSnippet, runLoggedSnippet } from '../src/test/index.js';

test('the Use snippet of the README runs and prints what its comments say', async () => {
  const { printed, expected } = await runLoggedSnippet(
    await readmeSnippet(new URL('../README.md', import.meta.url)),
  );
  expect(expected).toHaveLength(4);
  expect(printed).toEqual(expected);
});
