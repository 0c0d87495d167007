import { defineConfig } from 'vitest/config';

/**
 * The unit tests of planner/ and shared/ for mutation testing (stryker.config.json): no dev
 * server, no integration tests. CAIRN_MUTATION skips the slow seeded fuzz tests (declared with
 * `slowIt`, test/support/slow-it.ts), which would run again for every mutant they cover.
 */
export default defineConfig({
  test: {
    include: ['planner/**/*.test.ts', 'shared/**/*.test.ts'],
    exclude: ['node_modules/**', '.cache/**', 'dist/**', '.mutation/**'],
    env: { CAIRN_UNIT_ONLY: '1', CAIRN_MUTATION: '1' },
    testTimeout: 60_000,
  },
});
