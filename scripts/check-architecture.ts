/**
 * check-architecture: the layering rules of DESIGN.md that the compiler does not enforce, checked
 * on the sources of every package (`packages/<name>/src/**\/*.ts`).
 *
 * 1. **No runtime import cycle.** The module graph of every static `import … from` /
 *    `export … from` (across packages too: `@grag/x` resolves to `packages/x/src/index.ts`, a
 *    subpath through the package's `exports` map) has no cycle. `import type` / `export type`
 *    declarations are left out (erased); an import whose names are all `type` is kept, because
 *    with `verbatimModuleSyntax` it is emitted as `import {} from '…'` and still loads the module.
 *    Dynamic `import()` is left out (it does not take part in module evaluation order). There is
 *    no allowlist: every cycle fails.
 * 2. **No package reaches into another's `/internal` entry** (any import, type-only included).
 *    There is no allowlist: what several packages need is a public, documented entry point
 *    (`@grag/core/kit`, `@grag/core/graph`, `@grag/core/store`, ...).
 * 3. **Method packages import no provider package at run time** (static or dynamic; `import type`
 *    is allowed): a method gets its text analyzer, vector-index factory and tasks from the build
 *    context. {@link KNOWN_PROVIDER_IMPORTS}, the debt listed when the rule came, is empty, and the
 *    workspace test keeps it so.
 *
 * 4. **No source file over {@link MAX_FILE_LINES} lines, no function over
 *    {@link MAX_FUNCTION_LINES} lines** (issue 27), in every `.ts`/`.tsx`/`.mts` file under
 *    `packages/<name>/src` and `packages/server/explorer/src`. A function is a function
 *    declaration, method, constructor, accessor, arrow function or function expression, measured
 *    from its first token (its doc comment left out) to its last line; an enclosing function's
 *    length includes the functions inside it. A file that says `@generated` in its first lines is
 *    generated code and is not measured. Except the entries of {@link KNOWN_LONG_CODE}, today's
 *    debt, all in `packages/offline/src`.
 *
 * 5. **The contracts layer imports no implementation, and exports few runtime values; algorithm
 *    packages import no other algorithm package** (`scripts/architecture-layers.ts`, no
 *    allowlist): every import of `@grag/core`'s root entry and of `packages/core/src/contracts/`
 *    (type-only and dynamic ones included) resolves inside that set; the root entry exports at most
 *    60 runtime values; none of ktruss, summary-tree, keyword-bipartite, heterograph, dominance-gnn
 *    and rstar-index imports another of them (any import).
 *
 * 6. **No method package keys behaviour on a provider's id string**
 *    (`scripts/architecture-provider-ids.ts`, no allowlist): in the method packages' sources, no
 *    test of what `tasks.id`, `embedder.modelId`, ... says (`.id.startsWith(…)`, a comparison with
 *    a string, a `switch` or a regular expression on it). A provider's capability is declared on
 *    its contract (`TaskSuite.judgement`) and read there.
 *
 * The allowlists may only shrink: the check fails on a violation not listed, and on a listed
 * one that no longer exists (delete its line). Known debt is printed on every run.
 *
 * Usage:
 *   npx tsx scripts/check-architecture.ts      prints the report; exit code 1 when a rule fails
 * `packages/core/test/architecture.test.ts` runs the same check under vitest (whose `include`
 * globs do not reach `scripts/`), so `pnpm test` enforces it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { checkLayers, formatLayers, type LayerReport, layersOk } from './architecture-layers.js';
import { providerIdKeys } from './architecture-provider-ids.js';
import { importTarget } from './package-exports.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The paper-method packages (DESIGN.md: providers reach them only through the context). */
export const METHOD_PACKAGES = [
  '@grag/da-rag',
  '@grag/e2graphrag',
  '@grag/ket-rag',
  '@grag/noderag',
  '@grag/sg-rag',
  '@grag/naive-rag',
  '@grag/bridge-rag',
] as const;

/** Provider packages a method package may not import at run time. */
export const PROVIDER_PACKAGES = ['@grag/offline', '@grag/hnsw', '@grag/openai'] as const;

/**
 * Method-package files that import a provider package at run time, as `file -> specifier`: the
 * debt listed when the rule came, now paid (E2GraphRAG reads the context's `textAnalyzer`, NodeRAG
 * builds with the context's `vectorIndex`). Empty, and kept empty by the workspace test
 * (`packages/core/test/architecture.test.ts`): every such import fails.
 */
export const KNOWN_PROVIDER_IMPORTS: readonly string[] = [];

/** Longest source file allowed, in lines (issue 27). */
export const MAX_FILE_LINES = 500;

/** Longest function allowed, in lines (issue 27). */
export const MAX_FUNCTION_LINES = 150;

/** Where the size rule looks, besides `packages/<name>/src`: sources that are not a package's. */
export const EXTRA_SOURCE_DIRS = ['packages/server/explorer/src'] as const;

/**
 * Files and functions over the size limits today, as `file` or `file: function name` (see
 * {@link functionLengths} for how a function is named). Known debt: this list may only shrink,
 * and only files under {@link LONG_CODE_DEBT_DIR} may be listed (that package is being rewritten;
 * every other offender was split when the rule came).
 */
export const KNOWN_LONG_CODE: readonly string[] = [];

/** The only directory whose files {@link KNOWN_LONG_CODE} may list. */
export const LONG_CODE_DEBT_DIR = 'packages/offline/src/';

/** One import or re-export of a source file. */
export interface ImportEdge {
  /** Repository-relative path of the importing file. */
  from: string;
  /** The module specifier as written. */
  specifier: string;
  /** Repository-relative path of the imported source file, when it is in the workspace. */
  to?: string;
  /** 1-based line of the declaration. */
  line: number;
  /** `type` for `import type` / `export type` (erased), `dynamic` for `import()`. */
  kind: 'static' | 'type' | 'dynamic';
}

/** What {@link checkArchitecture} found. */
export interface ArchitectureReport {
  /** Every runtime import cycle, each as the files around it (the first file repeated at the end). */
  cycles: string[][];
  /** Imports of another package's `/internal` entry, as `file -> specifier`: each fails. */
  internalImports: string[];
  providerImports: AllowlistResult;
  /** Files and functions over the size limits, as {@link KNOWN_LONG_CODE} keys. */
  longCode: AllowlistResult;
  /** The layer rules: contracts closure, the contracts entry's runtime exports, algorithm isolation. */
  layers: LayerReport;
  /**
   * Where a method package inspects a provider's id string, as `file:line: code`: each fails
   * (rule 6).
   */
  providerIdKeys: string[];
  /** The length of each file or function over its limit, by key. */
  longCodeDetails: LongCode[];
  /** True when no rule fails. */
  ok: boolean;
  /** The report as printed by the command line. */
  text: string;
}

/** Violations of a rule with an allowlist, sorted. */
export interface AllowlistResult {
  /** Listed and still present: known debt. */
  known: string[];
  /** Present and not listed: fails. */
  added: string[];
  /** Listed and no longer present: fails until the line is deleted. */
  gone: string[];
}

interface WorkspacePackage {
  name: string;
  dir: string;
  /** Export subpath (`.`, `./internal`, …) -> absolute source file. */
  entries: Map<string, string>;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(path));
    else if (/\.(m|c)?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function workspacePackages(root: string): WorkspacePackage[] {
  const packagesDir = join(root, 'packages');
  const out: WorkspacePackage[] = [];
  for (const entry of readdirSync(packagesDir, { withFileTypes: true })) {
    const dir = join(packagesDir, entry.name);
    const manifest = join(dir, 'package.json');
    if (!entry.isDirectory() || !existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; exports?: unknown };
    const exportsMap: Record<string, unknown> =
      typeof pkg.exports === 'string'
        ? { '.': pkg.exports }
        : ((pkg.exports as Record<string, unknown> | undefined) ?? { '.': './dist/index.js' });
    const entries = new Map<string, string>();
    for (const [subpath, target] of Object.entries(exportsMap)) {
      const file = importTarget(target);
      if (!file || !/\.(m|c)?js$/.test(file)) continue;
      const source = join(
        dir,
        file
          .replace(/^\.\//, '')
          .replace(/^dist\//, 'src/')
          .replace(/\.(m|c)?js$/, '.ts'),
      );
      if (existsSync(source)) entries.set(subpath, source);
    }
    out.push({ name: pkg.name, dir, entries });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** `@grag/core/internal` -> `{ name: '@grag/core', subpath: './internal' }`. */
function splitPackageSpecifier(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const scoped = specifier.startsWith('@');
  const name = parts.slice(0, scoped ? 2 : 1).join('/');
  const rest = parts.slice(scoped ? 2 : 1).join('/');
  return { name, subpath: rest ? `./${rest}` : '.' };
}

function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const stem = base.replace(/\.(m|c)?js$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, base, join(base, 'index.ts')]) {
    if (existsSync(candidate) && !candidate.endsWith('.js')) return candidate;
  }
  return undefined;
}

/** The imports, re-exports and dynamic imports of one source file. */
export function importsOf(fileName: string, text: string): Omit<ImportEdge, 'from' | 'to'>[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: Omit<ImportEdge, 'from' | 'to'>[] = [];
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  for (const statement of source.statements) {
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      const typeOnly = ts.isImportDeclaration(statement)
        ? statement.importClause?.isTypeOnly === true
        : statement.isTypeOnly;
      out.push({
        specifier: statement.moduleSpecifier.text,
        line: lineOf(statement),
        kind: typeOnly ? 'type' : 'static',
      });
    } else if (
      ts.isImportEqualsDeclaration(statement) &&
      ts.isExternalModuleReference(statement.moduleReference)
    ) {
      const expr = statement.moduleReference.expression;
      if (ts.isStringLiteral(expr))
        out.push({
          specifier: expr.text,
          line: lineOf(statement),
          kind: statement.isTypeOnly ? 'type' : 'static',
        });
    }
  }
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length >= 1 &&
      ts.isStringLiteralLike(node.arguments[0]!)
    ) {
      out.push({
        specifier: (node.arguments[0] as ts.StringLiteralLike).text,
        line: lineOf(node),
        kind: 'dynamic',
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Lines of a text as `wc -l` counts them, plus an unterminated last line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

/** True for a file marked as generated code (`@generated` in its first five lines). */
export function isGenerated(text: string): boolean {
  return /@generated\b/.test(text.split('\n', 5).join('\n'));
}

/** One function of a source file and its length. */
export interface FunctionLength {
  /**
   * Its name, qualified by the functions and classes around it: `parse`, `Index.search`,
   * `createRag.retrieve` (a method of an object literal returned by `createRag`),
   * `runSpec.describe callback` (a function passed to a call is named after the callee).
   */
  name: string;
  /** 1-based line of its first token. */
  line: number;
  /** Lines from its first token to its last, both included. */
  lines: number;
}

function propertyNameText(name: ts.PropertyName | ts.BindingName | undefined, source: ts.SourceFile) {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteralLike(name)) return name.text;
  if (ts.isNumericLiteral(name)) return name.text;
  return name.getText(source);
}

/** The name a function-like node goes by in its file, without its enclosing names. */
function ownName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return propertyNameText(node.name, source) ?? '(anonymous)';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertyAssignment(parent))
    return propertyNameText(parent.name, source) ?? '(anonymous)';
  if (ts.isBinaryExpression(parent) && parent.right === node) return parent.left.getText(source);
  if (ts.isExportAssignment(parent)) return 'default';
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    const callee = parent.expression;
    const calleeName = ts.isIdentifier(callee)
      ? callee.text
      : ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : undefined;
    return calleeName ? `${calleeName} callback` : '(anonymous)';
  }
  return '(anonymous)';
}

/**
 * The length of every function of a source file with a body: function declarations, methods,
 * constructors, accessors, arrow functions and function expressions, in source order. A
 * function's length includes the functions inside it; its doc comment is not counted.
 */
export function functionLengths(fileName: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: FunctionLength[] = [];
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node, scope: string[]): void => {
    let inner = scope;
    if (ts.isClassLike(node)) inner = [...scope, node.name?.text ?? '(class)'];
    else if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      inner = [...scope, ownName(fn, source)];
      const line = lineOf(fn.getStart(source));
      out.push({ name: inner.join('.'), line, lines: lineOf(fn.getEnd()) - line + 1 });
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, []);
  return out;
}

/** The files (repository-relative) the size rule measures. */
function measuredFiles(root: string): string[] {
  const out: string[] = [];
  const packagesDir = join(root, 'packages');
  const dirs = readdirSync(packagesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(packagesDir, e.name, 'src'));
  for (const dir of [...dirs, ...EXTRA_SOURCE_DIRS.map((d) => join(root, d))]) {
    if (!existsSync(dir)) continue;
    for (const file of listFiles(dir)) if (/\.(tsx?|mts)$/.test(file)) out.push(relative(root, file));
  }
  return out.sort();
}

/** One file or function over its limit. */
export interface LongCode {
  /** `file` or `file: function name`, the form {@link KNOWN_LONG_CODE} lists. */
  key: string;
  /** Its length in lines. */
  lines: number;
  /** Its limit. */
  limit: number;
  /** 1-based line where a function starts. */
  line?: number;
}

/** Every file over {@link MAX_FILE_LINES} and function over {@link MAX_FUNCTION_LINES} lines. */
export function findLongCode(
  root = ROOT,
  limits: { file?: number; fn?: number } = {},
): { files: number; found: LongCode[] } {
  const fileLimit = limits.file ?? MAX_FILE_LINES;
  const fnLimit = limits.fn ?? MAX_FUNCTION_LINES;
  const files = measuredFiles(root);
  const found: LongCode[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    if (isGenerated(text)) continue;
    const lines = countLines(text);
    if (lines > fileLimit) found.push({ key: file, lines, limit: fileLimit });
    for (const fn of functionLengths(file, text))
      if (fn.lines > fnLimit)
        found.push({ key: `${file}: ${fn.name}`, lines: fn.lines, limit: fnLimit, line: fn.line });
  }
  return { files: files.length, found };
}

/** Every import edge of every `packages/<name>/src` file, resolved inside the workspace. */
export function collectImports(root = ROOT): {
  files: string[];
  edges: ImportEdge[];
  packages: WorkspacePackage[];
} {
  const packages = workspacePackages(root);
  const byName = new Map(packages.map((p) => [p.name, p]));
  const files: string[] = [];
  const edges: ImportEdge[] = [];
  for (const pkg of packages) {
    const srcDir = join(pkg.dir, 'src');
    if (!existsSync(srcDir)) continue;
    for (const file of listFiles(srcDir).sort()) {
      const from = relative(root, file);
      files.push(from);
      for (const edge of importsOf(file, readFileSync(file, 'utf8'))) {
        let target: string | undefined;
        if (edge.specifier.startsWith('.')) target = resolveRelative(file, edge.specifier);
        else {
          const { name, subpath } = splitPackageSpecifier(edge.specifier);
          target = byName.get(name)?.entries.get(subpath);
        }
        edges.push({ from, ...edge, ...(target ? { to: relative(root, target) } : {}) });
      }
    }
  }
  return { files, edges, packages };
}

/**
 * The cycles of a directed graph: one shortest cycle through each node of every strongly connected
 * component with more than one node (or a self-loop), deduplicated, each as its nodes with the
 * first repeated at the end. Components come from Tarjan's algorithm (iterative).
 */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const start of [...graph.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const succ = graph.get(frame.node) ?? [];
      if (frame.next < succ.length) {
        const w = succ[frame.next++]!;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, next: 0 });
        } else if (onStack.has(w)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.node);
        const selfLoop = component.length === 1 && (graph.get(w) ?? []).includes(w);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  const cycles = new Map<string, string[]>();
  for (const component of components) {
    const members = new Set(component);
    for (const node of component) {
      const cycle = shortestCycle(graph, node, members);
      // One cycle per rotation class: key it by its sorted, rotated-to-smallest form.
      const body = cycle.slice(0, -1);
      const smallest = body.indexOf([...body].sort()[0]!);
      const canonical = [...body.slice(smallest), ...body.slice(0, smallest)];
      cycles.set(canonical.join(' -> '), [...canonical, canonical[0]!]);
    }
  }
  return [...cycles.values()].sort((a, b) => (a.join() < b.join() ? -1 : 1));
}

/** The shortest path from `start` back to itself inside `members` (breadth first). */
function shortestCycle(
  graph: ReadonlyMap<string, readonly string[]>,
  start: string,
  members: ReadonlySet<string>,
): string[] {
  const parent = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = node; at !== start; at = parent.get(at)!) path.push(at);
        path.push(start);
        return [path[0]!, ...path.slice(1, -1).reverse(), start];
      }
      if (!parent.has(next) && next !== start) {
        parent.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

function compareAllowlist(found: Iterable<string>, listed: readonly string[]): AllowlistResult {
  const present = new Set(found);
  const allowed = new Set(listed);
  return {
    known: [...present].filter((v) => allowed.has(v)).sort(),
    added: [...present].filter((v) => !allowed.has(v)).sort(),
    gone: [...allowed].filter((v) => !present.has(v)).sort(),
  };
}

/** Which workspace package a repository-relative file belongs to. */
function packageOf(file: string, packages: WorkspacePackage[], root: string): string | undefined {
  const abs = join(root, file);
  return packages.find((p) => abs.startsWith(`${p.dir}/`))?.name;
}

/** Run every check on the workspace at `root`. */
export function checkArchitecture(
  root = ROOT,
  allowlists: {
    provider?: readonly string[];
    longCode?: readonly string[];
  } = {},
): ArchitectureReport {
  const { files, edges, packages } = collectImports(root);
  const graph = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const edge of edges) {
    if (edge.kind !== 'static' || !edge.to) continue;
    const out = graph.get(edge.from)!;
    if (!out.includes(edge.to)) out.push(edge.to);
  }
  const cycles = findCycles(graph);

  const internal = new Set<string>();
  const provider = new Set<string>();
  const methods = new Set<string>(METHOD_PACKAGES);
  const providers = new Set<string>(PROVIDER_PACKAGES);
  for (const edge of edges) {
    if (edge.specifier.startsWith('.')) continue;
    const { name, subpath } = splitPackageSpecifier(edge.specifier);
    const own = packageOf(edge.from, packages, root);
    if (name !== own && (subpath === './internal' || subpath.startsWith('./internal/')))
      internal.add(`${edge.from} -> ${edge.specifier}`);
    if (own && methods.has(own) && providers.has(name) && edge.kind !== 'type')
      provider.add(`${edge.from} -> ${edge.specifier}`);
  }
  const internalImports = [...internal].sort();
  const providerImports = compareAllowlist(provider, allowlists.provider ?? KNOWN_PROVIDER_IMPORTS);
  const { found: longCodeDetails } = findLongCode(root);
  const longCodeList = allowlists.longCode ?? KNOWN_LONG_CODE;
  const longCode = compareAllowlist(
    longCodeDetails.map((c) => c.key),
    longCodeList.filter((key) => key.startsWith(LONG_CODE_DEBT_DIR)),
  );
  // Debt outside the one package being rewritten is not accepted: such an entry counts as new.
  for (const key of longCodeList)
    if (!key.startsWith(LONG_CODE_DEBT_DIR) && !longCode.added.includes(key)) longCode.added.push(key);
  longCode.added.sort();
  const layers = checkLayers(root, edges, (file) => packageOf(file, packages, root));
  const idKeys = files
    .filter((file) => methods.has(packageOf(file, packages, root) ?? ''))
    .flatMap((file) =>
      providerIdKeys(file, readFileSync(join(root, file), 'utf8')).map((k) => `${file}:${k.line}: ${k.code}`),
    );
  const ok =
    layersOk(layers) &&
    idKeys.length === 0 &&
    cycles.length === 0 &&
    internalImports.length === 0 &&
    providerImports.added.length === 0 &&
    providerImports.gone.length === 0 &&
    longCode.added.length === 0 &&
    longCode.gone.length === 0;
  return {
    cycles,
    internalImports,
    providerImports,
    longCode,
    longCodeDetails,
    layers,
    providerIdKeys: idKeys,
    ok,
    text: formatReport(
      files.length,
      cycles,
      internalImports,
      providerImports,
      longCode,
      longCodeDetails,
      layers,
      idKeys,
    ),
  };
}

function formatReport(
  fileCount: number,
  cycles: string[][],
  internal: string[],
  provider: AllowlistResult,
  longCode: AllowlistResult,
  longCodeDetails: LongCode[],
  layers: LayerReport,
  idKeys: string[],
): string {
  const lines: string[] = [`check-architecture: ${fileCount} source files under packages/*/src`];
  lines.push(
    cycles.length === 0 ? 'runtime import cycles: none' : `runtime import cycles: ${cycles.length} (FAIL)`,
  );
  for (const cycle of cycles) lines.push(`  ${cycle.join(' -> ')}`);
  lines.push(...formatLayers(layers));
  const section = (
    title: string,
    r: AllowlistResult,
    listName: string,
    describe: (v: string) => string = (v) => v,
    newLine: (v: string) => string = (v) =>
      `${describe(v)} — remove it, or (only to record debt that predates this rule) list it in ${listName}`,
  ) => {
    lines.push(
      `${title}: ${r.known.length} known (debt), ${r.added.length} new, ${r.gone.length} fixed but still listed`,
    );
    for (const v of r.known) lines.push(`  known: ${describe(v)}`);
    for (const v of r.added) lines.push(`  NEW (FAIL): ${newLine(v)}`);
    for (const v of r.gone)
      lines.push(`  FIXED (FAIL until delisted): ${v} — delete its line from ${listName}`);
  };
  lines.push(
    internal.length === 0
      ? "imports of another package's /internal entry: none"
      : `imports of another package's /internal entry: ${internal.length} (FAIL)`,
  );
  for (const v of internal)
    lines.push(`  ${v} — import a public entry point instead (@grag/core, /kit, /graph, /store, /tasks)`);
  section(
    'runtime imports of a provider package by a method package',
    provider,
    'KNOWN_PROVIDER_IMPORTS',
    undefined,
    (v) =>
      `${v} — take the provider from the build context instead (ctx.textAnalyzer, ctx.vectorIndex, ctx.tasks, ctx.embedder); \`import type\` is allowed`,
  );
  lines.push(
    idKeys.length === 0
      ? "behaviour of a method package keyed on a provider's id string: none"
      : `behaviour of a method package keyed on a provider's id string: ${idKeys.length} (FAIL)`,
  );
  for (const v of idKeys)
    lines.push(
      `  ${v} — declare the capability on the provider's contract (e.g. TaskSuite.judgement) and read that`,
    );
  const details = new Map(longCodeDetails.map((c) => [c.key, c]));
  const describeLong = (key: string) => {
    const c = details.get(key);
    return c ? `${key} (${c.line ? `line ${c.line}, ` : ''}${c.lines} lines > ${c.limit})` : key;
  };
  section(
    `files over ${MAX_FILE_LINES} lines and functions over ${MAX_FUNCTION_LINES} lines`,
    longCode,
    'KNOWN_LONG_CODE',
    describeLong,
    (key) => {
      if (key.startsWith(LONG_CODE_DEBT_DIR))
        return `${describeLong(key)} — split it by concern, or (only to record debt that predates this rule) list it in KNOWN_LONG_CODE`;
      if (!details.has(key))
        return `${key} — listed in KNOWN_LONG_CODE, which may list code of ${LONG_CODE_DEBT_DIR} only; delete its line`;
      return `${describeLong(key)} — split it by concern (KNOWN_LONG_CODE may list code of ${LONG_CODE_DEBT_DIR} only)`;
    },
  );
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const report = checkArchitecture();
  console.log(report.text);
  console.log(report.ok ? 'check-architecture: ok' : 'check-architecture: FAILED');
  process.exitCode = report.ok ? 0 : 1;
}
