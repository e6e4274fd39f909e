import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Copy the index directory `from` to `to` and edit the JSON file `file` of the copy: `edit` changes
 * the parsed value in place (what it returns is ignored). For tests of a method's load checks:
 * `await editedIndexCopy(saved, join(root, 'bad'), 'graph.json', (g) => { g.nodes[0].id = 5; })`.
 */
export async function editedIndexCopy(
  from: string,
  to: string,
  file: string,
  // biome-ignore lint/suspicious/noExplicitAny: edits reach into JSON of a layout the test knows
  edit: (json: any) => unknown,
): Promise<string> {
  await cp(from, to, { recursive: true });
  const path = join(to, file);
  const json = JSON.parse(await readFile(path, 'utf8'));
  edit(json);
  await writeFile(path, JSON.stringify(json));
  return to;
}
