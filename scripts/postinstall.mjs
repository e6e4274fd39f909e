/**
 * Runs after `pnpm install` in this repository (the root package's `postinstall`): builds the
 * explorer page `grag serve` shows (`packages/server/dist/explorer`, esbuild only, well under a
 * second) and, unless it is up to date, the bundle `pnpm grag` starts from (scripts/cli-bundle.mjs). It never fails the
 * install: when a step cannot run it says so, and what to run instead.
 */
import { ensureCliBundle } from './cli-bundle.mjs';

/** One line on why a step failed: esbuild's first error with its place, else the error's first line. */
function message(error) {
  const first = error?.errors?.[0];
  if (first?.text) {
    const at = first.location ? `${first.location.file}:${first.location.line}: ` : '';
    return `${at}${first.text}`;
  }
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}

try {
  const { buildExplorer } = await import('../packages/server/scripts/build-explorer.mjs');
  await buildExplorer();
  console.log('grag: built the explorer page (packages/server/dist/explorer)');
} catch (error) {
  console.warn(
    `grag: the explorer page was not built (${message(error)}); grag serve runs without it until you run: npx -y pnpm@10 --filter @grag/server run build:explorer`,
  );
}

try {
  await ensureCliBundle();
  console.log('grag: the command line is built (packages/cli/node_modules/.cache/grag-cli)');
} catch (error) {
  console.warn(
    `grag: the command line was not prebuilt (${message(error)}); pnpm grag builds it when first run`,
  );
}
