/**
 * The worker thread of {@link kMeansOffThread} (`kmeans-thread.ts`): clusters the flat points it is
 * given and posts the result back (the labels' buffer transferred).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { clusterPoints } from './kmeans.js';
import type { KMeansTask } from './kmeans-thread.js';

const { flat, k, options } = workerData as KMeansTask;
const { labels, iterations, inertia } = clusterPoints(flat, k, options);
parentPort!.postMessage({ labels, iterations, inertia }, [labels.buffer as ArrayBuffer]);
