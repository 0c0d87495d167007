import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  allowedDecisions,
  isReviewDecisionType,
  REVIEW_DECISIONS,
  type ReviewDecision,
  type ReviewDecisionInput,
  type ReviewDecisionType,
} from './review-decision.js';

describe('the review-decision family', () => {
  it('has one variant per decision type, in each form', () => {
    expectTypeOf<ReviewDecisionInput['type']>().toEqualTypeOf<ReviewDecisionType>();
    expectTypeOf<ReviewDecision['type']>().toEqualTypeOf<(typeof REVIEW_DECISIONS)[number]>();
    // The planner's edit carries the hash of the arguments it checked; the sent one does not.
    expectTypeOf<Extract<ReviewDecision, { type: 'edit' }>>().toHaveProperty('argsHash');
    expectTypeOf<Extract<ReviewDecisionInput, { type: 'edit' }>>().not.toHaveProperty('argsHash');
  });

  it('knows its types and nothing else', () => {
    for (const type of REVIEW_DECISIONS) expect(isReviewDecisionType(type)).toBe(true);
    for (const other of ['Accept', 'approve', '', undefined, null, 1, { type: 'accept' }])
      expect(isReviewDecisionType(other)).toBe(false);
  });

  it('a review allows what its tool allows, or all four for one carried from before configs existed', () => {
    expect(allowedDecisions({ allowed: ['accept'] })).toEqual(['accept']);
    expect(allowedDecisions({})).toEqual(['accept', 'edit', 'respond', 'reject']);
  });
});
