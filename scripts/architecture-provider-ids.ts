/**
 * The check-architecture rule that no method package keys behaviour on a provider's id string
 * (issue 27): what a provider can do reaches a method as a declared capability of its contract
 * (`TaskSuite.judgement`, ...), never as a test of what its name says. `scripts/check-architecture.ts`
 * runs it on the sources of the method packages; it has no allowlist.
 *
 * A provider's name is a property {@link PROVIDER_NAME_FIELDS} of an expression whose last name is
 * one of {@link PROVIDER_OBJECTS} (`tasks.id`, `ctx.tasks.id`, `index.providers.embedder.modelId`).
 * Reading it is allowed (manifests, messages) and so is comparing two of them (`a.tasks.id !==
 * b.tasks.id`, the same provider); inspecting what it says fails:
 * - a property or method of it (`tasks.id.startsWith('offline')`, `embedder.modelId.length`);
 * - a comparison with a string literal or template (`tasks.id === 'offline:wink'`);
 * - a `switch` on it;
 * - a regular expression's `test` / `exec` / `match` of it (`/offline/.test(tasks.id)`).
 * It is a syntactic check: a name copied to a variable first is not followed.
 */
import ts from 'typescript';

/** The names a method reaches a provider by (the fields of the build context that hold one). */
export const PROVIDER_OBJECTS = [
  'tasks',
  'embedder',
  'chat',
  'chatModel',
  'model',
  'tokenizer',
  'analyzer',
] as const;

/** The fields that name a provider. */
export const PROVIDER_NAME_FIELDS = ['id', 'modelId', 'provider'] as const;

const OBJECTS = new Set<string>(PROVIDER_OBJECTS);
const FIELDS = new Set<string>(PROVIDER_NAME_FIELDS);
const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** One place a source file inspects a provider's name. */
export interface ProviderIdKey {
  /** 1-based line. */
  line: number;
  /** The expression that inspects it, as written (first line). */
  code: string;
}

/** True for `x.id` / `a.b.tasks.modelId`: a name field of a provider object. */
function isProviderName(node: ts.Node): node is ts.PropertyAccessExpression {
  if (!ts.isPropertyAccessExpression(node) || !FIELDS.has(node.name.text)) return false;
  const object = node.expression;
  const last = ts.isIdentifier(object)
    ? object.text
    : ts.isPropertyAccessExpression(object)
      ? object.name.text
      : undefined;
  return last !== undefined && OBJECTS.has(last);
}

function isStringLiteral(node: ts.Expression): boolean {
  return ts.isStringLiteralLike(node) || ts.isTemplateExpression(node);
}

/** The expression that inspects the provider name `name`, or undefined when it only reads it. */
function inspection(name: ts.PropertyAccessExpression): ts.Node | undefined {
  let node: ts.Node = name;
  while (ts.isParenthesizedExpression(node.parent) || ts.isNonNullExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (
    (ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent)) &&
    parent.expression === node
  )
    return ts.isCallExpression(parent.parent) && parent.parent.expression === parent ? parent.parent : parent;
  if (ts.isBinaryExpression(parent) && COMPARISONS.has(parent.operatorToken.kind)) {
    const other = parent.left === node ? parent.right : parent.left;
    return isStringLiteral(other) ? parent : undefined;
  }
  if (ts.isSwitchStatement(parent) && parent.expression === node) return parent.expression;
  if (ts.isCallExpression(parent) && parent.arguments.includes(node as ts.Expression)) {
    const callee = parent.expression;
    if (ts.isPropertyAccessExpression(callee) && ['test', 'exec', 'match'].includes(callee.name.text))
      return parent;
  }
  return undefined;
}

/** Every place `text` inspects a provider's name (see the module comment). */
export function providerIdKeys(fileName: string, text: string): ProviderIdKey[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: ProviderIdKey[] = [];
  const visit = (node: ts.Node): void => {
    if (isProviderName(node)) {
      const found = inspection(node);
      if (found) {
        const line = source.getLineAndCharacterOfPosition(found.getStart(source)).line + 1;
        out.push({ line, code: found.getText(source).split('\n')[0]! });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}
