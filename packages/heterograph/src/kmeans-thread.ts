/**
 * {@link kMeans} on a worker thread, so that the caller's thread can do other work meanwhile (NodeRAG
 * builds its HNSW index while semantic matching clusters). The same computation on the same points:
 * the same labels. When no worker can be started (or one fails), the clustering runs in this thread.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { clusterPoints, type KMeansOptions, kMeansInput } from './kmeans.js';
import type { FlatPoints } from './kmeans-seed.js';

/** What the worker is given. */
export interface KMeansTask {
  flat: FlatPoints;
  k: number;
  options: KMeansOptions;
  /** tsx's ESM API, when the worker runs from the TypeScript sources. */
  tsxApi?: string;
}

/** What {@link kMeansOffThread} resolves to: {@link kMeans}'s labels, iterations and inertia. */
export interface KMeansLabels {
  labels: Int32Array;
  iterations: number;
  inertia: number;
}

/** The file URL of tsx's ESM API (a development dependency: used only when running from sources). */
function tsxApi(from: string): string {
  const manifest = createRequire(from).resolve('tsx/package.json');
  return pathToFileURL(join(dirname(manifest), 'dist/esm/api/index.mjs')).href;
}

/** A worker clustering `task`, or `undefined` when none can be started. */
function startWorker(task: KMeansTask): Worker | undefined {
  const here = import.meta.url;
  const fromSources = here.endsWith('.ts');
  try {
    const env: Record<string, string | undefined> = { ...process.env };
    if (fromSources) {
      task.tsxApi = tsxApi(here);
      // Run from the workspace's sources: @grag/* resolve through the root tsconfig's paths.
      env.TSX_TSCONFIG_PATH ??= fileURLToPath(new URL('../../../tsconfig.json', here));
    }
    const file = new URL(fromSources ? './kmeans-worker-sources.mjs' : './kmeans-worker.js', here);
    return new Worker(file, { workerData: task, env });
  } catch {
    return undefined;
  }
}

/**
 * {@link kMeans} of `points` on a worker thread: the same labels, iterations and inertia (the
 * centres are not sent back). Checks its input here, as {@link kMeans} does.
 * @throws InvalidArgumentError as {@link kMeans} does (synchronously).
 */
export function kMeansOffThread(
  points: readonly ArrayLike<number>[],
  k: number,
  options: Partial<KMeansOptions> = {},
): Promise<KMeansLabels> {
  const input = kMeansInput(points, k, options);
  if (!input) return Promise.resolve({ labels: new Int32Array(0), iterations: 0, inertia: 0 });
  const task: KMeansTask = { flat: input.flat, k, options: input.o };
  const here = (): KMeansLabels => {
    const { labels, iterations, inertia } = clusterPoints(input.flat, k, input.o);
    return { labels, iterations, inertia };
  };
  const worker = startWorker(task);
  if (!worker) return Promise.resolve(here());
  return new Promise<KMeansLabels>((resolve) => {
    let settled = false;
    const fallBack = () => {
      if (settled) return;
      settled = true;
      resolve(here());
    };
    worker.once('message', (result: KMeansLabels) => {
      settled = true;
      resolve(result);
    });
    worker.once('error', fallBack);
    worker.once('exit', fallBack);
  });
}
