/** Small statistics and the description of the machine a run used. */
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';

/** Arithmetic mean; `NaN` for no values. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/**
 * The `p`-th percentile (0-100) by the nearest-rank method: the smallest value with at least p% of
 * the values at or below it. `NaN` for no values.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** What a results table names: CPU, cores, memory, Node version, platform. */
export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
}

/** The machine this process runs on. */
export function machine(): MachineInfo {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** The git commit of `cwd` and whether the work tree has changes. */
export interface GitState {
  /** `null` when `cwd` is not in a git work tree or git is not installed; `reason` says which. */
  commit: string | null;
  dirty?: boolean;
  reason?: string;
}

/** The git commit checked out at `cwd` (for run manifests). Never throws: a failure is described in `reason`. */
export function gitState(cwd = process.cwd()): GitState {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd,
      encoding: 'utf8',
      stdio: 'pipe',
    }).trim();
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd,
      encoding: 'utf8',
      stdio: 'pipe',
      maxBuffer: 1 << 24,
    });
    return { commit, dirty: status.trim() !== '' };
  } catch (error) {
    return { commit: null, reason: (error as Error).message.split('\n')[0] ?? 'git failed' };
  }
}

/** Peak resident set size of this process so far, in MiB. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}
