#!/usr/bin/env node
/**
 * `node grag.mjs <command>` in a clone: grag's command line as `scripts/grag.mjs` runs it (the CLI
 * from a bundle of the workspace's sources, rebuilt when a source changed), without the second or
 * so that `npx -y pnpm@10 grag` spends in npx and pnpm before grag starts.
 */
import './scripts/grag.mjs';
