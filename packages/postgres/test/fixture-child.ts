/** A fixture script (test/fixtures/*.ts) run in a child process by the crash and writer-lock checks. */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A running fixture: the process, what it has printed so far, and the signal it ends with. */
export interface FixtureChild {
  process: ChildProcessByStdio<null, Readable, Readable>;
  stdout(): string;
  stderr(): string;
  /** The signal that ended it (`null` when it exited by itself). */
  exited: Promise<NodeJS.Signals | null>;
  /**
   * Wait, looking every `stepMs`, until its stdout includes `marker`; throws `${failure}: <stderr>`
   * when it exits first or after a minute.
   */
  printed(marker: string, failure: string, stepMs: number): Promise<void>;
}

/** Run `script` with tsx from the repository root, passing `args`, and collect what it prints. */
export function runFixture(script: string, args: string[]): FixtureChild {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  return {
    process: child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async printed(marker, failure, stepMs) {
      for (let waited = 0; !stdout.includes(marker); waited += stepMs) {
        if (child.exitCode !== null || waited > 60_000) throw new Error(`${failure}: ${stderr}`);
        await sleep(stepMs);
      }
    },
  };
}
