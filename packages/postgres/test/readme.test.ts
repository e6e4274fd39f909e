import { rm, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readmeSnippet } from '@grag/core/test';
import { expect, it, vi } from 'vitest';

it('runs the Use snippet of the README and logs what its comments say', async () => {
  const snippet = await readmeSnippet(new URL('../README.md', import.meta.url));
  expect(snippet).toContain("postgresStore({ db, index: 'docs' })");
  const expected = [...snippet.matchAll(/^\/\/ → (.*)$/gm)].map((m) => JSON.parse(m[1]!) as unknown);
  expect(expected).toEqual(['absent', ['kessler'], [{ id: 2, score: -1 }]]);
  // Beside this test (not in a temporary directory) so that PGlite resolves from this package.
  const file = fileURLToPath(new URL(`./.readme-snippet-${process.pid}.ts`, import.meta.url));
  await writeFile(file, `${snippet}\nexport {};\n`);
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    await import(/* @vite-ignore */ pathToFileURL(file).href);
    expect(log.mock.calls.map(([value]) => JSON.parse(JSON.stringify(value)) as unknown)).toEqual(expected);
  } finally {
    log.mockRestore();
    await rm(file, { force: true });
  }
}, 60_000);
