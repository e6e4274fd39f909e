import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexFormatError } from '../src/index.js';
import { checkIndexFile, chunkSchema, readJson, shapeIssue, v, validate } from '../src/kit.js';
import { refusalOf } from '../src/test/vitest.js';
import { float32Rows } from '../src/validate.js';

const problem = (schema: Parameters<typeof validate>[0], value: unknown): string =>
  refusalOf(() => validate(schema, value, '/idx/file.json'), IndexFormatError).message;

describe('validation kit', () => {
  it('returns the value typed when it fits', () => {
    const schema = v.object({
      nodes: v.array(v.object({ id: v.string(), weight: v.number(), tag: v.optional(v.literal('a', 'b')) })),
      pair: v.tuple(v.int({ min: 0 }), v.boolean(), v.optional(v.string())),
      counts: v.record(v.int()),
      parent: v.nullable(v.int()),
    });
    const value = {
      nodes: [{ id: 'x', weight: 0.5 }],
      pair: [1, true],
      counts: { a: 1 },
      parent: null,
      extra: 1,
    };
    const parsed = validate(schema, value, 'f');
    expect(parsed.nodes[0]!.id).toBe('x');
    expect(parsed).toBe(value);
  });

  it('names the file and the path of the first bad part, ending with "rebuild the index."', () => {
    const graph = v.object({ nodes: v.array(v.object({ id: v.string() })) });
    expect(problem(graph, { nodes: [{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 5 }] })).toBe(
      '/idx/file.json: nodes[3].id is not a string (got 5); rebuild the index.',
    );
    expect(problem(graph, { nodes: 5 })).toMatch(/^\/idx\/file\.json: nodes is not an array \(got 5\)/);
    expect(problem(graph, null)).toMatch(/the file is not an object \(got null\); rebuild the index\.$/);
    expect(problem(graph, {})).toMatch(/nodes is missing/);
    expect(problem(v.record(v.int()), { 'a b': 1.5 })).toMatch(/\["a b"\] is not an integer/);
    expect(problem(v.tuple(v.int(), v.string()), [1])).toMatch(/has 1 elements, expected 2/);
    expect(problem(v.int({ min: 0 }), -1)).toMatch(/is not an integer ≥ 0/);
    expect(problem(v.number(), Number.NaN)).toMatch(/is not a finite number/);
    expect(problem(v.array(v.string(), { length: 2 }), ['a'])).toMatch(/has 1 elements, expected 2/);
    expect(problem(v.union(v.string(), v.int()), true)).toMatch(/is not a string or an integer/);
    expect(
      problem(
        v.refine(v.array(v.int()), (a) => (a.length % 2 === 0 ? undefined : 'has an odd length')),
        [1],
      ),
    ).toMatch(/the file has an odd length/);
  });

  it('checks chunks, cross-file consistency and float32 rows', () => {
    expect(() =>
      validate(chunkSchema, { id: 'a', docId: 'd', order: 0, text: 't', tokens: 1, start: 0 }, 'c.json'),
    ).toThrow(/c\.json: end is missing; rebuild the index\./);
    expect(() => checkIndexFile('g.json', () => shapeIssue('edges[2]', 'joins an unknown node'))).toThrow(
      'g.json: edges[2] joins an unknown node; rebuild the index.',
    );
    const bytes = new Uint8Array(new Float32Array([1, 2, 3, 4, 5, 6]).buffer);
    expect(float32Rows(bytes, 2, 3, 'v.f32').map((r) => Array.from(r))).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(() => float32Rows(bytes.subarray(0, 20), 2, 3, 'v.f32')).toThrow(
      /v\.f32: holds 20 bytes, not a whole number/,
    );
    expect(() => float32Rows(bytes, 2, 2, 'v.f32')).toThrow(/holds 3 vectors, expected 2/);
    const nan = new Uint8Array(new Float32Array([1, Number.NaN]).buffer);
    expect(() => float32Rows(nan, 1, 2, 'v.f32')).toThrow(/non-finite/);
  });

  it('readJson checks the shape of what it reads', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'grag-validate-'));
    const file = join(dir, 'graph.json');
    await writeFile(file, JSON.stringify({ nodes: [{ id: 1 }] }));
    const error = await readJson(file, v.object({ nodes: v.array(v.object({ id: v.string() })) })).catch(
      (e) => e,
    );
    expect(IndexFormatError.isInstance(error)).toBe(true);
    expect(error.path).toBe(file);
    expect(error.message).toBe(`${file}: nodes[0].id is not a string (got 1); rebuild the index.`);
    const missing = (await readJson(join(dir, 'none.json'), v.unknown()).catch((e) => e)) as Error;
    expect(missing.message).toMatch(/none\.json: cannot be read .*; rebuild the index\.$/);
  });
});
