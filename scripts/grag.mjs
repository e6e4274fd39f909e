#!/usr/bin/env node
/**
 * `pnpm grag …` in this repository: the command line of `packages/cli`, run from a prebuilt bundle
 * of the workspace's sources (see cli-bundle.mjs), rebuilt first when a source changed since, so
 * an edit takes effect on the next run as it did under tsx, without compiling the sources on every
 * start. `GRAG_DEBUG=1` also maps stack traces back to the TypeScript sources.
 */
import { pathToFileURL } from 'node:url';
import { buildCliBundle, currentBundle } from './cli-bundle.mjs';

let entry = await currentBundle();
if (entry === undefined) {
  try {
    entry = await buildCliBundle();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`grag: could not build the command line from packages/*/src:\n${message}\n`);
    process.exit(1);
  }
}
if (process.env.GRAG_DEBUG) process.setSourceMapsEnabled(true);
await import(pathToFileURL(entry).href);
