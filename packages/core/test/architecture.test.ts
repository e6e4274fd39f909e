/**
 * The workspace's layering rules (scripts/check-architecture.ts): no runtime import cycle, no
 * import of another package's `/internal` entry, no implementation behind the contracts entry and at
 * most 60 runtime values on it, no algorithm package importing another, no new runtime import of a
 * provider package by a method package, no method package keying behaviour on a provider's id
 * string, no source file over 500 lines and no function over 150 lines. It lives here because
 * vitest's `include` globs cover `packages/*\/test`, not `scripts/`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_CONTRACT_RUNTIME_EXPORTS, runtimeExportsOf } from '../../../scripts/architecture-layers.js';
import {
  checkArchitecture,
  countLines,
  findCycles,
  functionLengths,
  importsOf,
  KNOWN_LONG_CODE,
  KNOWN_PROVIDER_IMPORTS,
  LONG_CODE_DEBT_DIR,
} from '../../../scripts/check-architecture.js';

/**
 * A temporary workspace the checks run on (removed after the suite): `write` puts a file under it,
 * `pkg` a package.json with its name and `exports` map.
 */
function fakeWorkspace(prefix: string) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const pkg = (dir: string, name: string, exports: Record<string, string> = { '.': './dist/index.js' }) =>
    write(`packages/${dir}/package.json`, JSON.stringify({ name, exports }));
  return { root, write, pkg };
}

describe('the workspace', () => {
  it('has no runtime import cycle, and no import-rule violation beyond the listed debt', () => {
    const report = checkArchitecture();
    // On failure the message is the whole report: what is new, what to delete from an allowlist.
    expect(report.ok, report.text).toBe(true);
    expect(report.cycles).toEqual([]);
  });

  it('keeps no provider-import debt: every method package reaches its providers through the context', () => {
    expect(KNOWN_PROVIDER_IMPORTS).toEqual([]);
    expect(checkArchitecture().providerImports.known).toEqual([]);
  });

  it('keeps size debt only in the package being rewritten', () => {
    expect(KNOWN_LONG_CODE.filter((key) => !key.startsWith(LONG_CODE_DEBT_DIR))).toEqual([]);
  });
});

describe('countLines', () => {
  it('counts lines as wc -l does, and an unterminated last line', () => {
    expect(countLines('')).toBe(0);
    expect(countLines('a\n')).toBe(1);
    expect(countLines('a\nb')).toBe(2);
    expect(countLines('a\n\nb\n')).toBe(3);
  });
});

describe('functionLengths', () => {
  const source = [
    '/** A documented function: the comment is not counted. */', // 1
    'export function outer(a: number): number {', // 2
    '  const inner = (b: number) => {', // 3
    '    return b + 1;', // 4
    '  };', // 5
    '  return inner(a);', // 6
    '}', // 7
    'class Index {', // 8
    '  constructor(readonly n: number) {}', // 9
    '  search(q: string): string {', // 10
    '    return q;', // 11
    '  }', // 12
    '  get size(): number {', // 13
    '    return this.n;', // 14
    '  }', // 15
    '}', // 16
    'export const make = () => ({', // 17
    '  retrieve() {', // 18
    '    return [1].map(function (x) { return x; });', // 19
    '  },', // 20
    '});', // 21
    "describe('x', () => {", // 22
    '  it("y", () => {});', // 23
    '});', // 24
    'declare function overload(a: string): void;', // 25: no body, not measured
  ].join('\n');

  it('measures every function with a body, from its first token to its last line, named by scope', () => {
    expect(functionLengths('x.ts', source).map((f) => `${f.name} ${f.line} ${f.lines}`)).toEqual([
      'outer 2 6',
      'outer.inner 3 3',
      'Index.constructor 9 1',
      'Index.search 10 3',
      'Index.size 13 3',
      'make 17 5',
      'make.retrieve 18 3',
      'make.retrieve.map callback 19 1',
      'describe callback 22 3',
      'describe callback.it callback 23 1',
    ]);
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
  const { root, write, pkg } = fakeWorkspace('grag-architecture-');
  pkg('core', '@grag/core', { '.': './dist/index.js', './internal': './dist/internal.js' });
  write('packages/core/src/index.ts', "export * from './contracts/types.js';\n");
  write('packages/core/src/contracts/types.ts', 'export interface Doc {\n  id: string;\n}\n');
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

  it("fails on a cycle, on any import of another package's internal entry, and on a listed provider import that is gone", () => {
    const report = checkArchitecture(root, {
      provider: ['packages/ktruss/src/index.ts -> @grag/hnsw'],
      longCode: [],
    });
    expect(report.ok).toBe(false);
    expect(report.cycles).toEqual([
      ['packages/core/src/kg.ts', 'packages/core/src/linking.ts', 'packages/core/src/kg.ts'],
    ]);
    expect(report.internalImports).toEqual(['packages/noderag/src/index.ts -> @grag/core/internal']);
    // The type-only import is allowed; the dynamic one is a runtime import.
    expect(report.providerImports).toEqual({
      known: [],
      added: ['packages/noderag/src/index.ts -> @grag/hnsw'],
      gone: ['packages/ktruss/src/index.ts -> @grag/hnsw'],
    });
    expect(report.text).toContain(
      'packages/noderag/src/index.ts -> @grag/core/internal — import a public entry point',
    );
    expect(report.text).toContain(
      'NEW (FAIL): packages/noderag/src/index.ts -> @grag/hnsw — take the provider from the build context instead',
    );
  });

  it('passes when the cycle is broken, no internal entry is imported and the allowlists list exactly what is there', () => {
    write('packages/core/src/linking.ts', 'export const link = () => 1;\n');
    write(
      'packages/noderag/src/index.ts',
      ["import type { hnsw } from '@grag/hnsw';", "export const load = () => import('@grag/hnsw');"].join(
        '\n',
      ),
    );
    const report = checkArchitecture(root, {
      provider: ['packages/noderag/src/index.ts -> @grag/hnsw'],
      longCode: [],
    });
    expect(report.cycles).toEqual([]);
    expect(report.ok, report.text).toBe(true);
    expect(report.internalImports).toEqual([]);
    expect(report.providerImports.known).toEqual(['packages/noderag/src/index.ts -> @grag/hnsw']);
  });
});

describe('checkArchitecture on long files and functions', () => {
  const { root, write } = fakeWorkspace('grag-architecture-size-');
  const lines = (n: number, line = 'export const x = 1;') => `${Array(n).fill(line).join('\n')}\n`;
  /** A function of `n` lines: its signature, `n - 2` statements, its closing brace. */
  const fn = (name: string, n: number) =>
    `export function ${name}(): void {\n${lines(n - 2, '  void 0;')}}\n`;
  write(
    'packages/core/package.json',
    JSON.stringify({ name: '@grag/core', exports: { '.': './dist/index.js' } }),
  );
  write('packages/core/src/index.ts', fn('short', 150));
  write('packages/core/src/big.ts', lines(501));
  write('packages/core/src/long.ts', fn('tooLong', 151));
  write('packages/core/src/generated.ts', `// @generated by a tool\n${lines(600)}`);
  write(
    'packages/offline/package.json',
    JSON.stringify({ name: '@grag/offline', exports: { '.': './dist/index.js' } }),
  );
  write('packages/offline/src/index.ts', fn('legacy', 200));
  write(
    'packages/server/package.json',
    JSON.stringify({ name: '@grag/server', exports: { '.': './dist/index.js' } }),
  );
  write('packages/server/src/index.ts', 'export const s = 1;\n');
  write('packages/server/explorer/src/view.tsx', lines(502, 'export const v = <b />;'));

  it('fails on a new file over 500 lines and a new function over 150, in packages and the explorer', () => {
    const report = checkArchitecture(root, {
      provider: [],
      longCode: ['packages/offline/src/index.ts: legacy'],
    });
    expect(report.ok).toBe(false);
    expect(report.longCode).toEqual({
      known: ['packages/offline/src/index.ts: legacy'],
      added: [
        'packages/core/src/big.ts',
        'packages/core/src/long.ts: tooLong',
        'packages/server/explorer/src/view.tsx',
      ],
      gone: [],
    });
    expect(report.longCodeDetails.find((c) => c.key === 'packages/core/src/long.ts: tooLong')).toEqual({
      key: 'packages/core/src/long.ts: tooLong',
      lines: 151,
      limit: 150,
      line: 1,
    });
    expect(report.text).toContain(
      'NEW (FAIL): packages/core/src/big.ts (501 lines > 500) — split it by concern',
    );
  });

  it('accepts debt only in packages/offline/src, and fails on a listed entry that is gone', () => {
    write('packages/core/src/big.ts', lines(500));
    write('packages/core/src/long.ts', fn('tooLong', 150));
    write('packages/server/explorer/src/view.tsx', 'export const v = 1;\n');
    const clean = checkArchitecture(root, {
      provider: [],
      longCode: ['packages/offline/src/index.ts: legacy'],
    });
    expect(clean.ok, clean.text).toBe(true);
    const misplaced = checkArchitecture(root, {
      provider: [],
      longCode: ['packages/offline/src/index.ts: legacy', 'packages/core/src/long.ts: tooLong'],
    });
    expect(misplaced.ok).toBe(false);
    expect(misplaced.longCode.added).toEqual(['packages/core/src/long.ts: tooLong']);
    expect(misplaced.text).toContain('may list code of packages/offline/src/ only');
    const stale = checkArchitecture(root, {
      provider: [],
      longCode: ['packages/offline/src/index.ts: legacy', 'packages/offline/src/gone.ts'],
    });
    expect(stale.ok).toBe(false);
    expect(stale.longCode.gone).toEqual(['packages/offline/src/gone.ts']);
  });
});

describe('checkArchitecture on the layers', () => {
  const { root, write, pkg } = fakeWorkspace('grag-architecture-layers-');
  const noAllowlists = { provider: [], longCode: [] };
  pkg('core', '@grag/core', { '.': './dist/index.js', './kit': './dist/kit.js' });
  write('packages/core/src/kit.ts', 'export class Meter {}\nexport const kitValue = 1;\n');
  write('packages/core/src/contracts/errors.ts', 'export class GragError extends Error {}\n');
  write(
    'packages/core/src/contracts/method.ts',
    "import type { Meter } from '../kit.js';\nexport interface BuildContext {\n  meter: Meter;\n}\n",
  );
  write(
    'packages/core/src/index.ts',
    [
      "export { GragError } from './contracts/errors.js';",
      "export type { BuildContext } from './contracts/method.js';",
      "export { kitValue } from './kit.js';",
    ].join('\n'),
  );
  pkg('ktruss', '@grag/ktruss');
  write(
    'packages/ktruss/src/index.ts',
    "import type { Tree } from '@grag/summary-tree';\nexport type T = Tree;\n",
  );
  pkg('summary-tree', '@grag/summary-tree');
  write('packages/summary-tree/src/index.ts', 'export interface Tree {\n  id: string;\n}\n');

  it('fails when a contracts module imports an implementation, even for a type, and when an algorithm package imports another', () => {
    const report = checkArchitecture(root, noAllowlists);
    expect(report.ok).toBe(false);
    expect(report.layers.contractImports).toEqual([
      'packages/core/src/contracts/method.ts -> ../kit.js',
      'packages/core/src/index.ts -> ./kit.js',
    ]);
    expect(report.layers.algorithmImports).toEqual(['packages/ktruss/src/index.ts -> @grag/summary-tree']);
    expect(report.text).toContain('imports that leave the contracts layer: 2 (FAIL)');
  });

  it('counts the runtime exports of the contracts entry through re-exports, types left out', () => {
    expect([...runtimeExportsOf(join(root, 'packages/core/src/index.ts'))].sort()).toEqual([
      'GragError',
      'kitValue',
    ]);
    write(
      'packages/core/src/contracts/many.ts',
      Array.from({ length: MAX_CONTRACT_RUNTIME_EXPORTS + 1 }, (_, i) => `export const v${i} = ${i};`).join(
        '\n',
      ),
    );
    write(
      'packages/core/src/index.ts',
      "export * from './contracts/many.js';\nexport type * from './contracts/method.js';\n",
    );
    write('packages/core/src/contracts/method.ts', 'export interface BuildContext {\n  id: string;\n}\n');
    write('packages/ktruss/src/index.ts', 'export const k = 1;\n');
    const over = checkArchitecture(root, noAllowlists);
    expect(over.layers.contractImports).toEqual([]);
    expect(over.layers.contractRuntimeExports).toHaveLength(MAX_CONTRACT_RUNTIME_EXPORTS + 1);
    expect(over.ok).toBe(false);
    expect(over.text).toContain(
      `runtime exports of the contracts entry: ${MAX_CONTRACT_RUNTIME_EXPORTS + 1} (limit 60) (FAIL)`,
    );
    write('packages/core/src/index.ts', "export { v0, v1 } from './contracts/many.js';\n");
    const clean = checkArchitecture(root, noAllowlists);
    expect(clean.layers.contractRuntimeExports).toEqual(['v0', 'v1']);
    expect(clean.ok, clean.text).toBe(true);
  });
});

describe('checkArchitecture on provider ids', () => {
  const { root, write } = fakeWorkspace('grag-architecture-ids-');
  const noAllowlists = { provider: [], longCode: [] };
  write(
    'packages/core/package.json',
    JSON.stringify({ name: '@grag/core', exports: { '.': './dist/index.js' } }),
  );
  write(
    'packages/core/src/index.ts',
    "export const core = (tasks: { id: string }) => tasks.id.startsWith('x');\n",
  );
  write(
    'packages/da-rag/package.json',
    JSON.stringify({ name: '@grag/da-rag', exports: { '.': './dist/index.js' } }),
  );
  write(
    'packages/da-rag/src/retrieve.ts',
    [
      "export const scoring = (tasks: { id: string }) => (tasks.id.startsWith('offline') ? 'evidence' : 'model');",
      'export const same = (a: { tasks: { id: string } }, b: { tasks: { id: string } }) => a.tasks.id === b.tasks.id;',
      "export const label = (embedder: { modelId: string }) => 'the ' + embedder.modelId + ' embedder';",
    ].join('\n'),
  );
  write(
    'packages/da-rag/src/update.ts',
    [
      'type P = { tasks: { id: string }; embedder: { provider: string; modelId: string } };',
      "export const a = (ctx: P) => ctx.tasks.id === 'offline:wink';",
      'export const b = (p: P) => { switch (p.embedder.provider) { default: return /glove/.test(p.embedder.modelId); } };',
    ].join('\n'),
  );

  it("fails on a method package that inspects a provider's id, not on reading or comparing two", () => {
    const report = checkArchitecture(root, noAllowlists);
    expect(report.ok).toBe(false);
    expect(report.providerIdKeys).toEqual([
      "packages/da-rag/src/retrieve.ts:1: tasks.id.startsWith('offline')",
      "packages/da-rag/src/update.ts:2: ctx.tasks.id === 'offline:wink'",
      'packages/da-rag/src/update.ts:3: p.embedder.provider',
      'packages/da-rag/src/update.ts:3: /glove/.test(p.embedder.modelId)',
    ]);
    expect(report.text).toContain("keyed on a provider's id string: 4 (FAIL)");
  });

  it('passes when the method reads a declared capability instead (other packages are not checked)', () => {
    write(
      'packages/da-rag/src/retrieve.ts',
      "export const scoring = (tasks: { judgement?: string }) => (tasks.judgement === 'heuristic' ? 'evidence' : 'model');\n",
    );
    write('packages/da-rag/src/update.ts', 'export const a = 1;\n');
    const report = checkArchitecture(root, noAllowlists);
    expect(report.providerIdKeys).toEqual([]);
    expect(report.ok, report.text).toBe(true);
  });
});
