/**
 * The public surface is what api/cairn-agents.api.md says: a change to what users import shows in
 * review as a diff of that file (`npm run api:report` writes it again). Needs no server.
 */
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { API_REPORT, apiReport } from '../scripts/api-report.js';
import { slowIt } from './support/slow-it.js';

describe('the API report', () => {
  // Slow (a TypeScript program over every source) and nothing a mutant changes: skipped under mutation.
  slowIt(
    'matches the entry points (after a change to them: npm run api:report, and review the diff)',
    { timeout: 180_000 },
    () => {
      const checkedIn = readFileSync(API_REPORT, 'utf8');
      const now = apiReport();
      if (now !== checkedIn) {
        const before = new Set(checkedIn.split('\n'));
        const after = new Set(now.split('\n'));
        const changes = [
          ...[...before].filter((l) => !after.has(l)).map((l) => `- ${l}`),
          ...[...after].filter((l) => !before.has(l)).map((l) => `+ ${l}`),
        ];
        expect.fail(
          `The public API changed; run npm run api:report and review api/cairn-agents.api.md:\n${changes.join('\n')}`,
        );
      }
    },
  );
});
