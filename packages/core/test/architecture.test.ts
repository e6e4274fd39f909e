/**
 * The workspace's layering rules (scripts/check-architecture.ts): no runtime import cycle, no new
 * import of another package's `/internal` entry, no new runtime import of a provider package by a
 * method package. It lives here because vitest's `include` globs cover `packages/*\/test`, not
 * `scripts/`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkArchitecture, findCycles, importsOf } from '../../../scripts/check-architecture.js';

describe('the workspace', () => {
  it('has no runtime import cycle, and no import-rule violation beyond the listed debt', () => {
    const report = checkArchitecture();
    // On failure the message is the whole report: what is new, what to delete from an allowlist.
    expect(report.ok, report.text).toBe(true);
    expect(report.cycles).toEqual([]);
  });
});

describe('findCycles', () => {
  const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));

  it('finds none in a graph without cycles', () => {
    expect(findCycles(graph({ a: ['b', 'c'], b: ['c'], c: [] }))).toEqual([]);
  });

  it('reports a two-module cycle once, starting at its smallest module', () => {
    expect(findCycles(graph({ b: ['a'], a: ['b'], c: ['a'] }))).toEqual([['a', 'b', 'a']]);
  });

  it('reports a self-import', () => {
    expect(findCycles(graph({ a: ['a'] }))).toEqual([['a', 'a']]);
  });

  it('gives the shortest cycle through each module of a tangle', () => {
    const cycles = findCycles(graph({ a: ['b'], b: ['c', 'a'], c: ['a'], d: [] }));
    expect(cycles).toEqual([
      ['a', 'b', 'a'],
      ['a', 'b', 'c', 'a'],
    ]);
  });
});

describe('importsOf', () => {
  it('tells erased type-only declarations from runtime imports, and sees dynamic imports', () => {
    const found = importsOf(
      'x.ts',
      [
        "import type { A } from './a.js';",
        "import { type B } from './b.js';",
        "import { c, type C } from './c.js';",
        "export type { D } from './d.js';",
        "export * from './e.js';",
        "export { f } from './f.js';",
        "import './g.js';",
        "const h = await import('./h.js');",
      ].join('\n'),
    );
    expect(found.map((e) => `${e.specifier} ${e.kind} ${e.line}`)).toEqual([
      './a.js type 1',
      './b.js static 2', // emitted as `import {} from './b.js'` under verbatimModuleSyntax
      './c.js static 3',
      './d.js type 4',
      './e.js static 5',
      './f.js static 6',
      './g.js static 7',
      './h.js dynamic 8',
    ]);
  });
});

describe('checkArchitecture on a small workspace', () => {
  const root = mkdtempSync(join(tmpdir(), 'grag-architecture-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const pkg = (dir: string, name: string, exports: Record<string, string> = { '.': './dist/index.js' }) =>
    write(`packages/${dir}/package.json`, JSON.stringify({ name, exports }));
  pkg('core', '@grag/core', { '.': './dist/index.js', './internal': './dist/internal.js' });
  write('packages/core/src/index.ts', "export * from './kg.js';\n");
  write('packages/core/src/internal.ts', 'export const x = 1;\n');
  write('packages/core/src/kg.ts', "import { link } from './linking.js';\nexport const kg = link;\n");
  write('packages/core/src/linking.ts', "import { kg } from './kg.js';\nexport const link = () => kg;\n");
  pkg('hnsw', '@grag/hnsw');
  write('packages/hnsw/src/index.ts', 'export const hnsw = 1;\n');
  pkg('noderag', '@grag/noderag');
  write(
    'packages/noderag/src/index.ts',
    [
      "import { x } from '@grag/core/internal';",
      "import type { hnsw } from '@grag/hnsw';",
      "export const load = () => import('@grag/hnsw');",
      'export const y = x;',
    ].join('\n'),
  );
  pkg('ktruss', '@grag/ktruss');
  write('packages/ktruss/src/index.ts', "import { kg } from '@grag/core';\nexport const k = kg;\n");

  it('fails on a cycle, on an unlisted violation and on a listed one that is gone', () => {
    const report = checkArchitecture(root, {
      internal: ['packages/ktruss/src/index.ts -> @grag/core/internal'],
      provider: [],
    });
    expect(report.ok).toBe(false);
    expect(report.cycles).toEqual([
      ['packages/core/src/kg.ts', 'packages/core/src/linking.ts', 'packages/core/src/kg.ts'],
    ]);
    expect(report.internalImports).toEqual({
      known: [],
      added: ['packages/noderag/src/index.ts -> @grag/core/internal'],
      gone: ['packages/ktruss/src/index.ts -> @grag/core/internal'],
    });
    // The type-only import is allowed; the dynamic one is a runtime import.
    expect(report.providerImports.added).toEqual(['packages/noderag/src/index.ts -> @grag/hnsw']);
    expect(report.text).toContain('NEW (FAIL): packages/noderag/src/index.ts -> @grag/core/internal');
  });

  it('passes when the cycle is broken and the allowlists list exactly what is there', () => {
    write('packages/core/src/linking.ts', 'export const link = () => 1;\n');
    const report = checkArchitecture(root, {
      internal: ['packages/noderag/src/index.ts -> @grag/core/internal'],
      provider: ['packages/noderag/src/index.ts -> @grag/hnsw'],
    });
    expect(report.cycles).toEqual([]);
    expect(report.ok, report.text).toBe(true);
    expect(report.internalImports.known).toEqual(['packages/noderag/src/index.ts -> @grag/core/internal']);
  });
});
