import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AbortError,
  BuildStageError,
  embedAll,
  type ProgressEvent,
  StateError,
  type TaskSuite,
} from '@grag/core';
import {
  buildKey,
  createBuildContext,
  FileCheckpointStore,
  MemoryCheckpointStore,
  startBuild,
  trackBuilds,
} from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { afterEach, describe, expect, it } from 'vitest';

const context = (extra: Parameters<typeof createBuildContext>[0] extends infer P ? Partial<P> : never = {}) =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 8 }),
    tasks: {} as TaskSuite,
    ...extra,
  });

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('BuildRuntime.map', () => {
  it('keeps input order, never exceeds the concurrency, and reports progress per item', async () => {
    const events: ProgressEvent[] = [];
    const ctx = context({ runtime: { concurrency: 3 }, onProgress: (e) => events.push(e) });
    const rt = startBuild(ctx);
    let inFlight = 0;
    let peak = 0;
    const out = await rt.stage(
      'square',
      () =>
        rt.map(
          Array.from({ length: 20 }, (_, i) => i),
          async (n) => {
            inFlight += 1;
            peak = Math.max(peak, inFlight);
            // Later items finish first, so completion order differs from input order.
            await new Promise((resolve) => setTimeout(resolve, 20 - n));
            inFlight -= 1;
            return n * n;
          },
          { unit: 'numbers' },
        ),
      { checkpoint: false },
    );
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i * i));
    expect(peak).toBe(3);
    expect(events.map((e) => e.done)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(events.every((e) => e.stage === 'square' && e.total === 20 && e.unit === 'numbers')).toBe(true);
  });

  it('a failing item stops new work and becomes a BuildStageError naming the stage, the item and the resume step', async () => {
    const ctx = context({ runtime: { concurrency: 2, resumeHint: 'run grag index again to resume' } });
    const rt = startBuild(ctx);
    const started: number[] = [];
    const error = await rt
      .stage('extract', () =>
        rt.map(
          Array.from({ length: 10 }, (_, i) => ({ id: `c${i}` })),
          async (chunk, i) => {
            started.push(i);
            await tick();
            if (chunk.id === 'c3') throw new Error('HTTP 500 after 5 retries.');
            return i;
          },
          { label: (chunk) => `chunk ${chunk.id}` },
        ),
      )
      .catch((e: unknown) => e);
    expect(BuildStageError.isInstance(error)).toBe(true);
    const e = error as BuildStageError;
    expect(e.stage).toBe('extract');
    expect(e.item).toBe('chunk c3');
    // How many others finished first depends on timing.
    expect(e.message).toMatch(
      /^stage "extract" failed on chunk c3 \([3-5] of 10 done\): HTTP 500 after 5 retries; run grag index again to resume\.$/,
    );
    // Items started before the failure finish; none start after it.
    expect(started.length).toBeLessThanOrEqual(5);
  });

  it('stops at an abort and throws AbortError, not a stage error', async () => {
    const controller = new AbortController();
    const ctx = context({ signal: controller.signal, runtime: { concurrency: 1 } });
    const rt = startBuild(ctx);
    const seen: number[] = [];
    const error = await rt
      .map([0, 1, 2, 3, 4], async (n) => {
        seen.push(n);
        if (n === 1) controller.abort();
        return n;
      })
      .catch((e: unknown) => e);
    expect(AbortError.isInstance(error)).toBe(true);
    expect(seen).toEqual([0, 1]);
  });

  it('records the parse issues of every result with stage and item', async () => {
    const rt = startBuild(context());
    await rt.stage('extract', () =>
      rt.map(
        ['a', 'b'],
        async (id) => ({
          id,
          issues: id === 'b' ? [{ kind: 'skipped-record' as const, reason: 'bad tuple', raw: '("x"' }] : [],
        }),
        { label: (id) => `chunk ${id}` },
      ),
    );
    expect(rt.issues).toEqual([
      {
        kind: 'skipped-record',
        reason: 'bad tuple',
        raw: '("x"',
        stage: 'extract',
        step: '001-extract',
        item: 'chunk b',
      },
    ]);
    expect(rt.issueCounts()).toEqual({ extract: 1 });
  });

  it('embeds in batches of maxBatchSize, in order', async () => {
    const embedder = { ...createScriptedEmbedder({ dimensions: 4 }), maxBatchSize: 3 };
    const rt = startBuild(context({ embedder }));
    const values = Array.from({ length: 8 }, (_, i) => `text number ${i}`);
    const vectors = await rt.embed(values);
    const direct = await createScriptedEmbedder({ dimensions: 4 }).doEmbed({ values });
    expect(vectors).toEqual(direct.embeddings);
    expect(embedder.calls.map((c) => c.values.length).sort()).toEqual([2, 3, 3]);
  });

  it('embeds each distinct text once and returns a vector per value', async () => {
    const embedder = { ...createScriptedEmbedder({ dimensions: 4 }), maxBatchSize: 2 };
    const rt = startBuild(context({ embedder }));
    const vectors = await rt.embed(['a b', 'c', 'a b', 'c', 'd']);
    expect(embedder.calls.flatMap((c) => c.values).sort()).toEqual(['a b', 'c', 'd']);
    expect(vectors).toHaveLength(5);
    expect(vectors[2]).toBe(vectors[0]);
    expect(vectors[3]).toBe(vectors[1]);
  });
});

describe('embedAll and abort', () => {
  it('stops before the next batch once the signal aborts, even when the embedder ignores it', async () => {
    const controller = new AbortController();
    const scripted = createScriptedEmbedder({ dimensions: 4 });
    const embedder = {
      ...scripted,
      maxBatchSize: 2,
      doEmbed: async (options: { values: string[] }) => {
        const result = await scripted.doEmbed(options);
        controller.abort();
        return result;
      },
    };
    const error = await embedAll(embedder, ['a', 'b', 'c', 'd', 'e'], {
      abortSignal: controller.signal,
    }).catch((e: unknown) => e);
    expect(AbortError.isInstance(error)).toBe(true);
    expect(scripted.calls).toHaveLength(1);
  });
});

describe('BuildRuntime.stage checkpoints', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it('a rerun restores finished stages (with their issues) instead of running them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'grag-ckpt-'));
    dirs.push(dir);
    const runs: string[] = [];
    const build = async () => {
      const rt = startBuild(context({ runtime: { checkpoints: new FileCheckpointStore(dir) } }));
      const a = await rt.stage('a', async () => {
        runs.push('a');
        return { map: new Map([['x', new Float32Array([1, 2])]]), list: [1, 2, 3] };
      });
      const b = await rt.stage('a', () =>
        rt.map([1], async () => {
          runs.push('a2');
          return { issues: [{ kind: 'truncated' as const, reason: 'cut', raw: 'xx' }] };
        }),
      );
      const c = await rt.stage(
        'side-effect',
        () => {
          runs.push('c');
          return 1;
        },
        { checkpoint: false },
      );
      return { a, b, c, rt };
    };
    const first = await build();
    const second = await build();
    expect(runs).toEqual(['a', 'a2', 'c', 'c']);
    expect(second.a).toEqual(first.a);
    expect(second.a.map.get('x')).toBeInstanceOf(Float32Array);
    expect(second.b).toEqual(first.b);
    expect(second.rt.resumedStages).toEqual(['a', 'a']);
    expect(second.rt.issues).toEqual(first.rt.issues);
    expect((await readdir(dir)).sort()).toEqual(['001-a.v8', '002-a.v8']);
    await new FileCheckpointStore(dir).clear();
    await expect(readdir(dir)).rejects.toThrow();
  });

  it('refuses to checkpoint a class instance, naming the stage and the way out', async () => {
    class Graph {}
    const rt = startBuild(context({ runtime: { checkpoints: new MemoryCheckpointStore() } }));
    const error = await rt.stage('graph', () => ({ g: new Graph() })).catch((e: unknown) => e);
    expect(StateError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      'Stage "graph" returned a Graph instance, which a checkpoint cannot restore; return plain data or pass { checkpoint: false }.',
    );
  });

  it('buildKey changes with any input and not with key order', () => {
    const base = {
      method: 'm',
      formatVersion: 1,
      options: { a: 1, b: 2 },
      documents: [{ id: 'd', text: 't' }],
      providers: { embedder: 'e' },
    };
    const key = buildKey(base);
    expect(buildKey({ ...base, options: { b: 2, a: 1 } })).toBe(key);
    expect(buildKey({ ...base, options: { a: 1, b: 3 } })).not.toBe(key);
    expect(buildKey({ ...base, documents: [{ id: 'd', text: 't!' }] })).not.toBe(key);
    expect(buildKey({ ...base, providers: { embedder: 'f' } })).not.toBe(key);
    expect(buildKey({ ...base, options: { m: new Map([['k', 1]]) } })).not.toBe(
      buildKey({ ...base, options: { m: new Map([['k', 2]]) } }),
    );
  });
});

describe('startBuild', () => {
  it('gives each build on one context its own stage numbers and issues, announced to onStart', async () => {
    const ctx = context();
    const started: unknown[] = [];
    ctx.runtime = { onStart: (rt) => started.push(rt) };
    const build = async () => {
      const rt = startBuild(ctx);
      await rt.stage('extract', () =>
        rt.map([1, 2], (n) => ({ n, issues: [{ kind: 'skipped-record', raw: `bad ${n}`, reason: 'x' }] })),
      );
      await rt.stage('embed', () => 1, { checkpoint: false });
      return rt;
    };
    const first = await build();
    const second = await build();
    expect(started).toEqual([first, second]);
    expect(second).not.toBe(first);
    expect(first.stages).toEqual(['001-extract', '002-embed']);
    expect(second.stages).toEqual(['001-extract', '002-embed']);
    expect(first.issues).toHaveLength(2);
    expect(second.issues).toHaveLength(2);
    expect(second.issues.map((i) => i.step)).toEqual(['001-extract', '001-extract']);
  });

  it('trackBuilds keeps every runtime and chains an onStart already set', async () => {
    const seen: unknown[] = [];
    const ctx = context({ runtime: { onStart: (rt) => seen.push(rt) } });
    const builds = trackBuilds(ctx);
    const a = startBuild(ctx);
    const b = startBuild(ctx);
    expect(builds).toEqual([a, b]);
    expect(seen).toEqual([a, b]);
  });
});
