import { readmeSnippet, runLoggedSnippet } from '@grag/core/test';
import { describe, expect, test } from 'vitest';

const README = new URL('../README.md', import.meta.url);

describe('README "Use grag in your app": each snippet runs and prints what its comments say', () => {
  for (const heading of ['### As a library', '### As a server', '### With the AI SDK or LangChain.js']) {
    test(heading.slice(4), async () => {
      const { printed, expected } = await runLoggedSnippet(await readmeSnippet(README, heading));
      expect(expected).toHaveLength(1);
      expect(printed).toEqual(expected);
    });
  }
});
