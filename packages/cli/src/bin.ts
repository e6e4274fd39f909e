#!/usr/bin/env node
import { run } from './cli.js';

// The first Ctrl-C stops a build cleanly (finished work stays cached, the build resumes when run
// again); a second one exits at once.
const controller = new AbortController();
process.on('SIGINT', () => {
  if (controller.signal.aborted) process.exit(130);
  process.stderr.write('\ngrag: stopping after the calls in flight (Ctrl-C again to quit now)...\n');
  controller.abort();
});

const code = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.exitCode = code;
