/** A refused answer or decision carries a stable code that survives Temporal's failure converter. */
import { describe, expect, it } from 'vitest';
import { defaultFailureConverter, defaultPayloadConverter } from '@temporalio/common';
import { accepted, HumanInputError } from './human-input.js';
import { checkAnswer } from '../shared/human-input/answer.js';
import { checkReview } from '../planner/plan-human.js';
import { refusalCodeOf } from '../shared/human-input/refusal.js';

/** The refusal as a client decodes it from the failed Update. */
function decodedCode(act: () => void): { code: string | undefined; message: string } {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(HumanInputError);
    const decoded = defaultFailureConverter.failureToError(
      defaultFailureConverter.errorToFailure(error as Error, defaultPayloadConverter),
      defaultPayloadConverter,
    ) as Error & { details?: unknown };
    return { code: refusalCodeOf(decoded.details), message: decoded.message };
  }
  throw new Error('not refused');
}

const validateAnswer = (...a: Parameters<typeof checkAnswer>) => accepted(checkAnswer(...a));
type ReviewArgs = Parameters<typeof checkReview>;
const validateReview = (pending: ReviewArgs[0], decided: ReviewArgs[1], tools: ReviewArgs[2], input: ReviewArgs[3]) =>
  accepted(checkReview(pending, decided, tools, input, 'refuse'));
const pending = { id: 'q1' } as Parameters<typeof validateAnswer>[0];
const review = { toolCallId: '2.1', name: 'refund', argsHash: 'h1' } as ReviewArgs[0][number];

describe('HumanInputError codes', () => {
  it.each([
    [
      'nothing pending',
      () => validateAnswer(null, { id: 'q1', answer: 'x' }),
      'not_pending',
      /^No clarification is pending/,
    ],
    [
      'another question',
      () => validateAnswer(pending, { id: 'q9', answer: 'x' }),
      'not_pending',
      /^Unknown clarification id "q9"/,
    ],
    ['an empty answer', () => validateAnswer(pending, { id: 'q1', answer: ' ' }), 'invalid_input', /empty/],
    [
      'no such review',
      () => validateReview([], {}, new Map(), { toolCallId: '9', argsHash: 'h', decision: { type: 'accept' } }),
      'not_pending',
      /^No review is pending/,
    ],
    [
      'stale arguments',
      () =>
        validateReview([review], {}, new Map(), { toolCallId: '2.1', argsHash: 'h0', decision: { type: 'accept' } }),
      'stale_review',
      /^Stale decision/,
    ],
    [
      'a different decision after one was taken',
      () =>
        validateReview(
          [],
          { '2.1': { argsHash: 'h1', decision: { type: 'accept' }, sent: '{"type":"accept"}' } },
          new Map(),
          { toolCallId: '2.1', argsHash: 'h1', decision: { type: 'reject' } },
        ),
      'already_decided',
      /already decided/,
    ],
  ] as const)('%s: %s', (_, act, code, message) => {
    const refused = decodedCode(act);
    expect(refused.code).toBe(code);
    expect(refused.message).toMatch(message);
  });
});
