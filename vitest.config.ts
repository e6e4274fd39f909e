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
  },
});
