/**
 * vitest: before any test, the Temporal CLI that the tests' dev server runs is found, or built
 * once for this machine with Go (progress lines; 4 to 16 minutes with empty Go caches, the longer on a busy machine). A global
 * setup has no timeout, unlike the beforeAll that starts the server.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { globalSetup: ['./vitest.setup.ts'] },
});
