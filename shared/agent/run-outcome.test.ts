import { describe, expect, it } from 'vitest';
import { FAILING_END_CODES, RUN_END_CODES, isRunEndCode } from './run-outcome.js';

// That docs/failure-taxonomy.md lists these codes is checked in activities/failure-taxonomy.contract.test.ts.
describe('run end codes', () => {
  it('fail the run only for a model that cannot be used', () => {
    expect(FAILING_END_CODES).toStrictEqual(['model_unavailable', 'model_misconfigured']);
  });

  it('recognise a code read back from JSON, and nothing else', () => {
    for (const code of RUN_END_CODES) expect(isRunEndCode(code), code).toBe(true);
    for (const other of ['answered', 'timeout', '', undefined, null, 0, ['cancelled'], { code: 'cancelled' }])
      expect(isRunEndCode(other), String(other)).toBe(false);
  });
});
