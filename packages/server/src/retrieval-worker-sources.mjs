/**
 * The retrieval worker run from the TypeScript sources (tests, `pnpm grag`, the benchmarks): tsx's
 * loader registered in this thread (a worker does not get the hooks of `--import`), then the worker
 * module itself. The built package starts `retrieval-worker.js` directly.
 */
import { workerData } from 'node:worker_threads';

const { register } = await import(workerData.tsxApi);
register();
const worker = await import(new URL('./retrieval-worker.ts', import.meta.url).href);
export default worker.default;
