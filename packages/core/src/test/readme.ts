import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The first ```ts block under `heading` of a README, so tests can run what the README shows. */
export async function readmeSnippet(readme: URL | string, heading = '## Use'): Promise<string> {
  const text = await readFile(readme, 'utf8');
  const at = text.indexOf(heading);
  const snippet = at < 0 ? undefined : /```ts\n([\s\S]*?)```/.exec(text.slice(at))?.[1];
  if (snippet === undefined)
    throw new Error(`readmeSnippet: no \`\`\`ts block under "${heading}" in ${String(readme)}`);
  return snippet;
}

/**
 * Run a snippet as a module and compare what it logs with its `// → <JSON>` comments: returns
 * `printed` (every `console.log` value, JSON round-tripped) and `expected` (the comments, parsed).
 * `append` is added at the end of the module (e.g. exports the test wants to inspect).
 */
export async function runLoggedSnippet(
  code: string,
  append = 'export {};',
): Promise<{ printed: unknown[]; expected: unknown[]; module: Record<string, unknown> }> {
  const expected = [...code.matchAll(/^\/\/ → (.*)$/gm)].map((m) => JSON.parse(m[1]!) as unknown);
  const dir = await mkdtemp(join(tmpdir(), 'grag-snippet-'));
  const file = join(dir, 'snippet.ts');
  await writeFile(file, `${code}\n${append}\n`);
  const printed: unknown[] = [];
  // Plain patching rather than a test framework's spy: `@grag/core/test` depends on no test runner.
  const log = console.log;
  console.log = (value: unknown) => {
    printed.push(JSON.parse(JSON.stringify(value)));
  };
  try {
    const module = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Record<string, unknown>;
    return { printed, expected, module };
  } finally {
    console.log = log;
    await rm(dir, { recursive: true, force: true });
  }
}
