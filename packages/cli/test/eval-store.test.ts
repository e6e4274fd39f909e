/**
 * `grag eval --store` (or `GRAG_STORE`): each method's index lives in PostgreSQL (PGlite served
 * over the wire) as `eval_<method>`, built by the first run and loaded by the next, with the same
 * metrics as a run that keeps its indexes in directories.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalIndexName } from '../src/eval-command.js';
import { miniDataset, runGrag } from './helpers.js';
import { closedPort, PASSWORD, type SocketDb, servePglite } from './pg-harness.js';

let db: SocketDb;
let root: string;

beforeAll(async () => {
  db = await servePglite();
  root = miniDataset('grag-cli-eval-store-');
}, 60_000);

afterAll(async () => {
  await db?.stop();
  rmSync(root, { recursive: true, force: true });
});

const grag = (args: string[], env: NodeJS.ProcessEnv = {}) => runGrag(root, args, env);

const EVAL = ['eval', 'mini', '--methods', 'naive-dense,bm25', '--budget', '200'];

/** Label → metrics of each method in `<out>/report.json`. */
function metrics(out: string): Record<string, Record<string, number>> {
  const report = JSON.parse(readFileSync(join(root, out, 'report.json'), 'utf8')) as {
    methods: { label: string; metrics: Record<string, number>; index: { source: string } }[];
  };
  return Object.fromEntries(report.methods.map((m) => [m.label, m.metrics]));
}

function sources(out: string): string[] {
  const report = JSON.parse(readFileSync(join(root, out, 'report.json'), 'utf8')) as {
    methods: { index: { source: string } }[];
  };
  return report.methods.map((m) => m.index.source);
}

describe('grag eval --store', () => {
  it('names each index eval_<method> in lower case with _ for other characters', () => {
    expect(evalIndexName('naive-dense')).toBe('eval_naive_dense');
    expect(evalIndexName('bm25')).toBe('eval_bm25');
    expect(evalIndexName('KET-RAG.v2')).toBe('eval_ket_rag_v2');
  });

  it('builds the indexes into the database, then loads them in another run, with the metrics of a directory run', async () => {
    const dirRun = await grag([...EVAL, '--out', 'dirs', '-q']);
    expect(dirRun.code, dirRun.err).toBe(0);
    expect(existsSync(join(root, 'dirs', 'indexes'))).toBe(true);

    const first = await grag([...EVAL, '--out', 'pg1', '--store', db.url]);
    expect(first.code, first.err).toBe(0);
    expect(first.err).not.toContain(PASSWORD);
    expect(first.err).toContain('grag: keeping the indexes in --store as eval_naive_dense, eval_bm25');
    expect(first.err).toMatch(/grag: naive-dense: built the index in /);
    expect(first.err).toMatch(/grag: bm25: built the index in /);
    expect(existsSync(join(root, 'pg1', 'indexes'))).toBe(false);
    expect(sources('pg1')).toEqual(['built', 'built']);
    const schemas = await db.db.query<{ name: string }>(
      `SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE 'grag_eval_%' ORDER BY 1`,
    );
    expect(schemas.rows.map((r) => r.name)).toEqual(['grag_eval_bm25', 'grag_eval_naive_dense']);
    expect(metrics('pg1')).toEqual(metrics('dirs'));
    // bm25 ranks each question's own passage first: Recall@2 of 1 on every question.
    expect(metrics('pg1').bm25?.['recall@2']).toBe(1);

    // GRAG_STORE works as --store; a run in a new --out loads instead of building.
    const second = await grag([...EVAL, '--out', 'pg2'], { GRAG_STORE: db.url });
    expect(second.code, second.err).toBe(0);
    const shown = db.url.replace(`:${PASSWORD}@`, '@');
    expect(second.err).toContain(`grag: naive-dense: loaded the index from ${shown}#eval_naive_dense.`);
    expect(second.err).toContain(`grag: bm25: loaded the index from ${shown}#eval_bm25.`);
    expect(second.err).not.toMatch(/built the index/);
    expect(second.err).not.toContain(PASSWORD);
    expect(sources('pg2')).toEqual(['loaded', 'loaded']);
    expect(metrics('pg2')).toEqual(metrics('dirs'));
  }, 120_000);

  it('with --vector-precision float16 asks the index as stored, and rebuilds one stored at another precision', async () => {
    const run = ['eval', 'mini', '--methods', 'noderag', '--budget', '200', '--store', db.url];
    const shown = `${db.url.replace(`:${PASSWORD}@`, '@')}#eval_noderag`;
    const half = await grag([...run, '--out', 'half', '--vector-precision', 'float16']);
    expect(half.code, half.err).toBe(0);
    expect(half.err).toContain(`grag: noderag: loaded the index back from ${shown} (float16 vectors).`);
    const manifest = await db.db.query<{ manifest: { vectorPrecision?: string } }>(
      'SELECT manifest FROM grag_eval_noderag.versions WHERE current',
    );
    expect(manifest.rows[0]?.manifest.vectorPrecision).toBe('float16');
    // The same precision: loaded as it is; another: rebuilt and replaced.
    const again = await grag([...run, '--out', 'half2', '--vector-precision', 'float16']);
    expect(again.err).toContain(`grag: noderag: loaded the index from ${shown}.`);
    expect(metrics('half2')).toEqual(metrics('half'));
    const full = await grag([...run, '--out', 'full', '--vector-precision', 'float32']);
    expect(full.code, full.err).toBe(0);
    expect(full.err).toContain(`grag: noderag: ${shown} holds float16 vectors, not float32; rebuilding.`);
    expect(full.err).toMatch(/grag: noderag: built the index in /);
  }, 120_000);

  it('an unreachable database is one line and exit 1; demo still refuses --store', async () => {
    const port = await closedPort();
    const url = `postgres://u:${PASSWORD}@127.0.0.1:${port}/db`;
    const r = await grag([...EVAL, '--out', 'down', '--store', url, '-q']);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `grag: @grag/postgres: cannot reach PostgreSQL at postgres://u@127.0.0.1:${port}/db (ECONNREFUSED); check the host and port in the URL and that the server is running.\n`,
    );
    const demo = await grag(['demo', '--store', db.url]);
    expect(demo.code).toBe(2);
    expect(demo.err).toBe(
      'grag: --store is an option of index, query, add, remove, serve, eval; grag demo keeps its indexes in directories. Run `grag --help`.\n',
    );
  });
});
