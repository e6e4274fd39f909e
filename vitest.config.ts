import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const packages = fileURLToPath(new URL('./packages/', import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of the workspace, not built dist/ files.
    alias: [
      { find: /^@grag\/core\/graph$/, replacement: `${packages}core/src/graph/index.ts` },
      { find: /^@grag\/core\/kit$/, replacement: `${packages}core/src/kit.ts` },
      { find: /^@grag\/core\/store$/, replacement: `${packages}core/src/store/index.ts` },
      { find: /^@grag\/core\/tasks$/, replacement: `${packages}core/src/tasks/index.ts` },
      { find: /^@grag\/core\/test$/, replacement: `${packages}core/src/test/index.ts` },
      { find: /^@grag\/core\/test\/vitest$/, replacement: `${packages}core/src/test/vitest.ts` },
      { find: /^@grag\/server\/client$/, replacement: `${packages}server/src/client.ts` },
      { find: /^@grag\/([a-z0-9-]+)$/, replacement: `${packages}$1/src/index.ts` },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'forks',
    // At least two test files at a time, also on a 2-core machine (vitest's default is one fewer than
    // the cores): much of the suite waits on child processes, servers and the browser, and one fork
    // left a core idle (CI's unit stage took about 19 minutes with one, see .ci/run).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
