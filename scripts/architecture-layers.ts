/**
 * The layering rules of check-architecture that concern what imports what between layers
 * (issue 27): the contracts entry of `@grag/core` stays free of implementation, keeps a small
 * runtime surface, and the algorithm packages stay independent of each other. Each has no
 * allowlist. `scripts/check-architecture.ts` runs them on the import edges it collects.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The contracts layer: `@grag/core`'s root entry and the modules under its `contracts/` directory.
 * Every import of these files (type-only and dynamic included) must resolve to another of them:
 * no implementation module of core, no other package, no Node built-in.
 */
export const CONTRACTS = {
  /** The root entry of `@grag/core`, repository-relative. */
  entry: 'packages/core/src/index.ts',
  /** The directory that holds every other contracts module, repository-relative. */
  dir: 'packages/core/src/contracts/',
} as const;

/** Most runtime values the contracts entry may export (issue 27). */
export const MAX_CONTRACT_RUNTIME_EXPORTS = 60;

/** The algorithm packages (DESIGN.md: independent of each other). */
export const ALGORITHM_PACKAGES = [
  '@grag/ktruss',
  '@grag/summary-tree',
  '@grag/keyword-bipartite',
  '@grag/heterograph',
  '@grag/dominance-gnn',
  '@grag/rstar-index',
] as const;

/** One import edge as check-architecture collects it (the fields these rules read). */
export interface LayerEdge {
  from: string;
  specifier: string;
  to?: string;
  kind: 'static' | 'type' | 'dynamic';
}

/** What the layer rules found; every list entry fails. */
export interface LayerReport {
  /** Imports of a contracts module that leave the contracts layer, as `file -> specifier`. */
  contractImports: string[];
  /** The contracts entry's runtime exports, sorted (undefined when there is no such entry). */
  contractRuntimeExports?: string[];
  /** Imports of an algorithm package by another algorithm package, as `file -> specifier`. */
  algorithmImports: string[];
}

/** True for a file of the contracts layer (repository-relative path). */
export function isContractsFile(file: string): boolean {
  return file === CONTRACTS.entry || file.startsWith(CONTRACTS.dir);
}

/** The runtime names a module exports, following `export … from` and `export *` through relative paths. */
export function runtimeExportsOf(file: string, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  if (seen.has(file) || !existsSync(file)) return out;
  seen.add(file);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const target = (spec: ts.Expression | undefined) => {
    if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) return undefined;
    const stem = resolve(dirname(file), spec.text).replace(/\.(m|c)?js$/, '');
    return [`${stem}.ts`, join(stem, 'index.ts')].find((f) => existsSync(f));
  };
  const localValues = new Set<string>();
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const st of source.statements) {
    const names: string[] = [];
    if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name) names.push(st.name.text);
    else if (
      ts.isEnumDeclaration(st) &&
      !(ts.getModifiers(st) ?? []).some((m) => m.kind === ts.SyntaxKind.ConstKeyword)
    )
      names.push(st.name.text);
    else if (ts.isVariableStatement(st))
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    for (const n of names) {
      localValues.add(n);
      if (exported(st)) out.add(n);
    }
    if (ts.isExportAssignment(st)) out.add('default');
  }
  for (const st of source.statements) {
    if (!ts.isExportDeclaration(st) || st.isTypeOnly) continue;
    const from = target(st.moduleSpecifier);
    const values = from ? runtimeExportsOf(from, new Set(seen)) : localValues;
    if (!st.exportClause) for (const n of values) n !== 'default' && out.add(n);
    else if (ts.isNamespaceExport(st.exportClause)) out.add(st.exportClause.name.text);
    else
      for (const el of st.exportClause.elements)
        if (!el.isTypeOnly && values.has((el.propertyName ?? el.name).text)) out.add(el.name.text);
  }
  return out;
}

/** Run the layer rules on the import edges of every package source file. */
export function checkLayers(
  root: string,
  edges: readonly LayerEdge[],
  packageOf: (file: string) => string | undefined,
): LayerReport {
  const contractImports = new Set<string>();
  for (const edge of edges)
    if (isContractsFile(edge.from) && !(edge.to && isContractsFile(edge.to)))
      contractImports.add(`${edge.from} -> ${edge.specifier}`);
  const algorithms = new Set<string>(ALGORITHM_PACKAGES);
  const algorithmImports = new Set<string>();
  for (const edge of edges) {
    if (edge.specifier.startsWith('.')) continue;
    const own = packageOf(edge.from);
    const name = edge.specifier.split('/').slice(0, 2).join('/');
    if (own && name !== own && algorithms.has(own) && algorithms.has(name))
      algorithmImports.add(`${edge.from} -> ${edge.specifier}`);
  }
  const entry = join(root, CONTRACTS.entry);
  return {
    contractImports: [...contractImports].sort(),
    ...(existsSync(entry) ? { contractRuntimeExports: [...runtimeExportsOf(entry)].sort() } : {}),
    algorithmImports: [...algorithmImports].sort(),
  };
}

/** True when no layer rule fails. */
export function layersOk(report: LayerReport): boolean {
  return (
    report.contractImports.length === 0 &&
    report.algorithmImports.length === 0 &&
    (report.contractRuntimeExports?.length ?? 0) <= MAX_CONTRACT_RUNTIME_EXPORTS
  );
}

/** The layer rules' lines of the check-architecture report. */
export function formatLayers(report: LayerReport): string[] {
  const lines: string[] = [];
  const list = (title: string, found: string[], fix: string) => {
    lines.push(found.length === 0 ? `${title}: none` : `${title}: ${found.length} (FAIL)`);
    for (const v of found) lines.push(`  ${v} — ${fix}`);
  };
  list(
    'imports that leave the contracts layer',
    report.contractImports,
    `${CONTRACTS.entry} and ${CONTRACTS.dir}* import only each other: move the type into contracts (an interface the implementation implements), or the function out of the contracts entry`,
  );
  const exports = report.contractRuntimeExports;
  if (exports) {
    const over = exports.length > MAX_CONTRACT_RUNTIME_EXPORTS;
    lines.push(
      `runtime exports of the contracts entry: ${exports.length} (limit ${MAX_CONTRACT_RUNTIME_EXPORTS})${over ? ' (FAIL) — move implementations to @grag/core/kit, /graph, /store or /tasks' : ''}`,
    );
  }
  list(
    'imports of an algorithm package by another',
    report.algorithmImports,
    'algorithm packages are independent: move what both need into @grag/core',
  );
  return lines;
}
