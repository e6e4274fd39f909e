import { Writable } from 'node:stream';
import type { CliIO } from '../src/index.js';

/** A CLI IO that captures stdout and stderr; environment without any OpenAI settings. */
export function captureIO(
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): CliIO & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        append(String(chunk));
        cb();
      },
    });
  return {
    stdout: sink((s) => {
      out += s;
    }),
    stderr: sink((s) => {
      err += s;
    }),
    env,
    cwd,
    out: () => out,
    err: () => err,
  };
}
