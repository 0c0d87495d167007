import { describe, expect, it } from 'vitest';
import { CONFLICT_REFUSALS, refusalCodeOf } from './refusal.js';

describe('refusalCodeOf', () => {
  it('reads each refusal code from the first detail of a HumanInputError', () => {
    for (const code of ['not_pending', 'stale_review', 'already_decided', 'invalid_input'])
      expect(refusalCodeOf([{ code }, 'more'])).toBe(code);
  });

  it('finds none in details of another failure, or in malformed ones', () => {
    for (const details of [
      undefined,
      null,
      [],
      [null],
      ['not_pending'],
      [{ code: 'timeout' }],
      [{ code: 7 }],
      [{}],
      { code: 'not_pending' },
      [[{ code: 'not_pending' }]],
    ]) {
      expect(refusalCodeOf(details), JSON.stringify(details)).toBeUndefined();
    }
  });

  it("counts as conflicts (HTTP 409) what no longer applies, not the sender's mistake", () => {
    expect([...CONFLICT_REFUSALS].sort()).toEqual(['already_decided', 'not_pending', 'stale_review']);
  });
});
