/**
 * api-report: the public surface of every package, as a committed list of exported names.
 *
 * For each package under `packages/`, every subpath of its package.json `exports` map (except
 * `./package.json`) is resolved from its built file to its TypeScript source
 * (`./dist/test/index.js` → `src/test/index.ts`), and the TypeScript compiler lists the names that
 * entry point exports, each with its kind: a runtime value (function, class, const, enum,
 * namespace) or type-only (interface, type alias, anything re-exported with `export type`).
 * The result is one markdown file per package, `api/<package>.api.md`, sorted so it is stable: a
 * change to a public surface shows up as a diff of that file in review.
 *
 * Usage:
 *   pnpm api-report          write api/*.api.md from the sources
 *   pnpm api-report:check    fail, with a diff, when api/ differs from the sources (CI)
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { importTarget } from './package-exports.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, 'api');
const check = process.argv.includes('--check');

interface EntryPoint {
  /** The import specifier a user writes, e.g. `@grag/core/test`. */
  specifier: string;
  /** Absolute path of the TypeScript source it resolves to. */
  file: string;
}

interface PackageEntries {
  /** Directory name under packages/, which names the report file. */
  dir: string;
  name: string;
  entries: EntryPoint[];
}

interface ExportedName {
  name: string;
  /** `function`, `class`, `const`, `enum`, `namespace`, `interface`, `type`, or several joined by `+`. */
  kind: string;
  /** True when the name exists at run time (not only as a type). */
  value: boolean;
}

/** `./dist/test/index.js` → `<pkg>/src/test/index.ts`. */
function sourceOf(pkgDir: string, target: string): string {
  const rel = target.replace(/^\.\//, '').replace(/^dist\//, 'src/');
  const candidates = [rel.replace(/\.(m|c)?js$/, '.ts'), rel.replace(/\.(m|c)?js$/, '.tsx')];
  for (const candidate of candidates) {
    const file = join(pkgDir, candidate);
    if (existsSync(file)) return file;
  }
  throw new Error(
    `api-report: ${relative(root, pkgDir)}/package.json exports "${target}", but neither ${candidates.join(' nor ')} exists under it. Fix the exports map or the source layout.`,
  );
}

async function findPackages(): Promise<PackageEntries[]> {
  const packagesDir = join(root, 'packages');
  const dirs = (await readdir(packagesDir, { withFileTypes: true }))
    .filter((d) => d.isDirectory() && existsSync(join(packagesDir, d.name, 'package.json')))
    .map((d) => d.name)
    .sort();
  const out: PackageEntries[] = [];
  for (const dir of dirs) {
    const pkgDir = join(packagesDir, dir);
    const pkg = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as {
      name: string;
      exports?: Record<string, unknown> | string;
    };
    const exportsMap: Record<string, unknown> =
      typeof pkg.exports === 'string' ? { '.': pkg.exports } : (pkg.exports ?? {});
    const entries: EntryPoint[] = [];
    for (const [subpath, target] of Object.entries(exportsMap)) {
      if (subpath === './package.json') continue;
      const file = importTarget(target);
      if (!file || !/\.(m|c)?js$/.test(file)) continue;
      entries.push({
        specifier: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`,
        file: sourceOf(pkgDir, file),
      });
    }
    entries.sort((a, b) => compare(a.specifier, b.specifier));
    out.push({ dir, name: pkg.name, entries });
  }
  return out;
}

/** Code-unit order, case-insensitive first: stable on every machine and locale. */
function compare(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function createProgram(files: string[]): ts.Program {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configPath));
  return ts.createProgram({ rootNames: files, options: { ...parsed.options, noEmit: true } });
}

function kindOf(symbol: ts.Symbol): { kind: string; value: boolean } {
  const F = ts.SymbolFlags;
  const kinds: string[] = [];
  const f = symbol.flags;
  if (f & F.Class) kinds.push('class');
  else if (f & F.Function) kinds.push('function');
  if (f & F.Enum) kinds.push(f & F.ConstEnum ? 'const enum' : 'enum');
  if (f & F.Variable) kinds.push(variableKind(symbol));
  if (f & F.ValueModule) kinds.push('namespace');
  if (f & F.Interface && !(f & F.Class)) kinds.push('interface');
  if (f & F.TypeAlias) kinds.push('type');
  if (f & F.NamespaceModule && !(f & F.ValueModule)) kinds.push('namespace (types)');
  if (kinds.length === 0) kinds.push('unknown');
  return { kind: kinds.join(' + '), value: (f & F.Value) !== 0 && !(f & F.ConstEnum) };
}

function variableKind(symbol: ts.Symbol): string {
  const decl = symbol.valueDeclaration;
  if (decl && ts.isVariableDeclaration(decl) && ts.isVariableDeclarationList(decl.parent)) {
    const flags = decl.parent.flags;
    if (flags & ts.NodeFlags.Const) return 'const';
    if (flags & ts.NodeFlags.Let) return 'let';
    return 'var';
  }
  return 'const';
}

/** True when some link of an alias chain is an `import type` / `export type` declaration. */
function aliasIsTypeOnly(checker: ts.TypeChecker, symbol: ts.Symbol): boolean {
  let current: ts.Symbol | undefined = symbol;
  const seen = new Set<ts.Symbol>();
  while (current && current.flags & ts.SymbolFlags.Alias && !seen.has(current)) {
    seen.add(current);
    for (const decl of current.declarations ?? []) {
      if (ts.isTypeOnlyImportOrExportDeclaration(decl)) return true;
    }
    current = checker.getImmediateAliasedSymbol(current);
  }
  return false;
}

/**
 * Names a module exports only as types through `export type * from '...'` (directly or through
 * plain `export *` chains): the compiler's public API does not say so on the symbol.
 */
function typeOnlyStarNames(
  checker: ts.TypeChecker,
  file: ts.SourceFile,
  seen = new Set<string>(),
): Set<string> {
  const names = new Set<string>();
  if (seen.has(file.fileName)) return names;
  seen.add(file.fileName);
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement) || statement.exportClause || !statement.moduleSpecifier) continue;
    const target = checker.getSymbolAtLocation(statement.moduleSpecifier);
    if (!target) continue;
    if (statement.isTypeOnly) {
      for (const s of checker.getExportsOfModule(target)) names.add(s.name);
    } else {
      const targetFile = target.valueDeclaration?.getSourceFile();
      if (targetFile) for (const n of typeOnlyStarNames(checker, targetFile, seen)) names.add(n);
    }
  }
  return names;
}

function exportsOf(program: ts.Program, file: string): ExportedName[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`api-report: the compiler did not load ${relative(root, file)}.`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return [];
  const starTypeOnly = typeOnlyStarNames(checker, source);
  const out: ExportedName[] = [];
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const resolved = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const { kind, value } = kindOf(resolved);
    const typeOnly = aliasIsTypeOnly(checker, symbol) || starTypeOnly.has(symbol.name);
    out.push({
      name: symbol.name,
      kind: typeOnly && value ? `${kind}, type-only export` : kind,
      value: value && !typeOnly,
    });
  }
  return out.sort((a, b) => compare(a.name, b.name));
}

function render(pkg: PackageEntries, program: ts.Program): string {
  const lines: string[] = [
    `# API report: ${pkg.name}`,
    '',
    '<!-- Generated by `pnpm api-report` from the sources; do not edit. CI runs `pnpm api-report:check`. -->',
    '',
  ];
  if (pkg.entries.length === 0) lines.push('No JavaScript entry points.', '');
  for (const entry of pkg.entries) {
    const names = exportsOf(program, entry.file);
    const values = names.filter((n) => n.value);
    const types = names.filter((n) => !n.value);
    lines.push(
      `## \`${entry.specifier}\``,
      '',
      `Source: \`${relative(root, entry.file).split('\\').join('/')}\`. ${names.length} names: ${values.length} runtime values, ${types.length} type-only.`,
      '',
    );
    if (values.length > 0) {
      lines.push('### Runtime values', '');
      for (const n of values) lines.push(`- \`${n.name}\` (${n.kind})`);
      lines.push('');
    }
    if (types.length > 0) {
      lines.push('### Types', '');
      for (const n of types) lines.push(`- \`${n.name}\` (${n.kind})`);
      lines.push('');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/**
 * The changed lines of a report (longest common subsequence; the reports are small), each under
 * the entry point (`## ...` heading) it belongs to.
 */
function diffLines(before: string, after: string): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const headingOf = (lines: string[], at: number): string => {
    for (let k = Math.min(at, lines.length - 1); k >= 0; k--)
      if (lines[k]!.startsWith('## ')) return lines[k]!;
    return '(header)';
  };
  let lastHeading = '';
  const under = (heading: string) => {
    if (heading !== lastHeading) out.push(`  ${heading}`);
    lastHeading = heading;
  };
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      under(headingOf(b, j));
      out.push(`    + ${b[j]}`);
      j++;
    } else {
      under(headingOf(a, i));
      out.push(`    - ${a[i]}`);
      i++;
    }
  }
  return out;
}

async function main(): Promise<void> {
  const packages = await findPackages();
  const program = createProgram(packages.flatMap((p) => p.entries.map((e) => e.file)));
  const reports = new Map<string, string>();
  for (const pkg of packages) reports.set(`${pkg.dir}.api.md`, render(pkg, program));

  const existing = existsSync(outDir)
    ? (await readdir(outDir)).filter((f) => f.endsWith('.api.md')).sort()
    : [];

  if (!check) {
    await mkdir(outDir, { recursive: true });
    for (const stale of existing.filter((f) => !reports.has(f))) await rm(join(outDir, stale));
    for (const [file, text] of reports) await writeFile(join(outDir, file), text);
    console.log(`api-report: wrote ${reports.size} reports to ${relative(root, outDir)}/`);
    return;
  }

  const problems: string[] = [];
  for (const stale of existing.filter((f) => !reports.has(f))) {
    problems.push(`api/${stale}: no package makes this report any more; delete it.`);
  }
  for (const [file, text] of reports) {
    const path = join(outDir, file);
    if (!existsSync(path)) {
      problems.push(`api/${file}: missing.`);
      continue;
    }
    const committed = await readFile(path, 'utf8');
    if (committed !== text) {
      problems.push(
        `api/${file} differs from the sources (+ in the sources, - in the committed report):\n${diffLines(committed, text).join('\n')}`,
      );
    }
  }
  if (problems.length > 0) {
    console.error(
      `api-report: the public API changed.\n\n${problems.join('\n\n')}\n\nIf the change is intended, run \`pnpm api-report\` and commit api/.`,
    );
    process.exitCode = 1;
    return;
  }
  console.log(`api-report: ${reports.size} reports match the sources.`);
}

await main();
