/**
 * The k-means worker run from the TypeScript sources (tests, `pnpm grag`, the benchmarks): tsx's
 * loader registered in this thread (a worker does not get the hooks of `--import`), then the worker
 * module itself. The built package starts `kmeans-worker.js` directly.
 */
import { workerData } from 'node:worker_threads';

const { register } = await import(workerData.tsxApi);
register();
await import(new URL('./kmeans-worker.ts', import.meta.url).href);
