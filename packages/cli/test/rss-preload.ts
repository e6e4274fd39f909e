/**
 * Preloaded (`node --import`) into a `grag` child process where `/usr/bin/time` is missing: at exit,
 * prints the process's peak resident set size, in KiB (worker threads included), as the last line
 * of stderr: `grag-rss: <kib>`.
 */
import { writeSync } from 'node:fs';

process.on('exit', () => {
  writeSync(2, `grag-rss: ${process.resourceUsage().maxRSS}\n`);
});
