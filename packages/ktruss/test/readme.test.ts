import { fileURLToPath } from 'node:url';
import { readmeSnippet, runLoggedSnippet } from '@grag/core/test';
import { expect, test } from 'vitest';

test('the Use snippet of the README runs and prints what its comments say', async () => {
  const snippet = await readmeSnippet(new URL('../README.md', import.meta.url));
  // The snippet runs from a temporary directory: point its graphology import at this package's copy.
  const graphology = fileURLToPath(
    new URL('../node_modules/graphology/dist/graphology.mjs', import.meta.url),
  );
  const { printed, expected } = await runLoggedSnippet(
    snippet.replace("from 'graphology'", `from '${graphology}'`),
  );
  expect(expected).toHaveLength(4);
  expect(printed).toEqual(expected);
});
