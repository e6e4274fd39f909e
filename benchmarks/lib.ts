import { execFileSync } from 'node:child_process';

/**
 * Helpers shared by the benchmark scripts, re-exported from `@grag/eval` (SQuAD normalization,
 * Coverage, Recall@k, nearest-rank percentiles, the dataset loader, the machine description).
 */
export {
  covers,
  loadQaDataset,
  machine,
  mean,
  normalizeAnswer,
  percentile,
  type QaDataset,
  type QaQuestion,
  recallAt,
} from '@grag/eval';

/**
 * Run a benchmark script again in a child process (so its peak RSS is its own) with `args`, and
 * return the JSON value of the last line the child writes to stdout. stderr is passed through.
 */
export function runInChild<T>(script: string, args: readonly string[]): T {
  const out = execFileSync(process.execPath, [...process.execArgv, script, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as T;
}
