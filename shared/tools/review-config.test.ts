import { describe, expect, it } from 'vitest';
import { DefinitionError } from '../failures/definition-error.js';
import { MAX_REVIEW_DESCRIPTION_CHARS, checkReviewConfig, type ReviewConfig } from './review-config.js';

function refusal(config: unknown): string {
  try {
    checkReviewConfig('refund', config as ReviewConfig);
  } catch (err) {
    expect(DefinitionError.isInstance(err) && err.code).toBe('invalid_review_config');
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('checkReviewConfig', () => {
  it('takes a review without allow (all four decisions) or with known decisions, once each', () => {
    expect(checkReviewConfig('refund', undefined)).toBeUndefined();
    expect(checkReviewConfig('refund', { description: '  Check the amount. ' })).toEqual({
      description: 'Check the amount.',
    });
    expect(checkReviewConfig('refund', { allow: ['accept', 'reject', 'accept'] })).toEqual({
      allow: ['accept', 'reject'],
    });
  });

  it('refuses an empty or unknown set of decisions, naming the tool and the decisions there are', () => {
    const message = 'The review of refund must allow one or more of accept, edit, respond, reject.';
    expect(refusal({ allow: [] })).toBe(message);
    expect(refusal({ allow: ['accept', 'approve'] })).toBe(message);
    expect(refusal({ allow: 'accept' })).toBe(message);
  });

  it('takes a description of up to the bound, and refuses a blank, longer or non-text one', () => {
    const max = 'd'.repeat(MAX_REVIEW_DESCRIPTION_CHARS);
    expect(checkReviewConfig('refund', { description: max })).toEqual({ description: max });
    const message = `The review description of refund must be text of at most ${MAX_REVIEW_DESCRIPTION_CHARS} characters.`;
    for (const description of [`${max}d`, '   ', 5]) expect(refusal({ description })).toBe(message);
  });
});
