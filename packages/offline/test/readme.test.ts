import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test, vi } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'grag-offline-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the Use snippet of the README runs and prints what its comments say', async () => {
  const use = readme.slice(readme.indexOf('## Use'));
  const snippet = /```ts\n([\s\S]*?)```/.exec(use)?.[1];
  expect(snippet).toBeDefined();
  // Each `console.log(...)` is followed by a `// → <JSON>` comment with the value it prints.
  const expected = [...snippet!.matchAll(/^\/\/ → (.*)$/gm)].map((m) => JSON.parse(m[1]!) as unknown);
  expect(expected.length).toBeGreaterThan(0);

  const file = join(dir, 'snippet.ts');
  writeFileSync(file, `${snippet}\nexport {};\n`);
  const printed: unknown[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((value: unknown) => {
    printed.push(JSON.parse(JSON.stringify(value)));
  });
  try {
    await import(/* @vite-ignore */ file);
  } finally {
    log.mockRestore();
  }
  expect(printed).toEqual(expected);
});
