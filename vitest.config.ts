import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The examples import Cairn by its package name; in this repository that means the sources.
    alias: [
      { find: /^cairn-agents$/, replacement: fileURLToPath(new URL('./entry/index.ts', import.meta.url)) },
      { find: /^cairn-agents\/(.+)$/, replacement: fileURLToPath(new URL('./entry/$1.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['**/*.test.ts'],
    // starter/ is a template: test/package.test.ts runs its test in a project made from the packed package.
    exclude: ['node_modules/**', '.cache/**', 'dist/**', 'starter/**', '.mutation/**'],
    // One real Temporal dev server per run, shared by every integration test.
    globalSetup: ['test/global-setup.ts'],
    // Temporal's native bridge panics under worker threads (sdk-typescript#876): use processes.
    pool: 'forks',
    // Integration tests mostly wait on the dev server: three files at once on two cores took the
    // suite from ~340 s to ~205 s here, all passing.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
  },
});
