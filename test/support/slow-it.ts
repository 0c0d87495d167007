import { it } from 'vitest';

/**
 * `it` for slow seeded fuzz and deep-nesting tests: skipped under `npm run mutation`
 * (vitest.mutation.config.ts sets CAIRN_MUTATION), where they would run again for every mutant
 * they cover. `npm test` and CAIRN_UNIT_ONLY runs keep them.
 */
export const slowIt = it.skipIf(Boolean(process.env.CAIRN_MUTATION));
