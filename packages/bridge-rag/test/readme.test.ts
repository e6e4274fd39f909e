import { readmeSnippet, runLoggedSnippet } from '@grag/core/test';
import { expect, test } from 'vitest';

test('the Use snippet of the README runs and prints what its comments say', async () => {
  const { printed, expected } = await runLoggedSnippet(
    await readmeSnippet(new URL('../README.md', import.meta.url)),
  );
  expect(expected).toHaveLength(3);
  expect(printed).toEqual(expected);
});
