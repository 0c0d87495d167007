import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', '.cache/**'],
    // One real Temporal dev server per run, shared by every integration test.
    globalSetup: ['test/global-setup.ts'],
    // Temporal's native bridge panics under worker threads (sdk-typescript#876): use processes.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
  },
});
