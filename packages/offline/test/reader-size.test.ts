import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

// The offline reader stays in files a reader of the code can hold: none over 400 lines (issue 30).
test('no file of the offline reader is over 400 lines', () => {
  const dir = join(import.meta.dirname, '..', 'src', 'reader');
  const long = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => [f, readFileSync(join(dir, f), 'utf8').split('\n').length - 1] as const)
    .filter(([, lines]) => lines > 400);
  expect(long).toEqual([]);
});
