/** A refused answer or decision carries a stable code that survives Temporal's failure converter. */
import { describe, expect, it } from 'vitest';
import { defaultFailureConverter, defaultPayloadConverter } from '@temporalio/common';
import { accepted, HumanInputError } from './human-input.js';
import { checkAnswer } from '../shared/human-input/answer.js';
import { checkReview } from '../planner/plan-human.js';
import { refusalCodeOf } from '../shared/human-input/refusal.js';
import { z } from 'zod';
import type { AnyTool } from '../shared/tools/define-tool.js';

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
const validateReview = (...a: Parameters<typeof checkReview>) => accepted(checkReview(...a));
const pending = { id: 'q1' } as Parameters<typeof validateAnswer>[0];
const review = { toolCallId: '2.1', name: 'refund', argsHash: 'h1' } as Parameters<typeof validateReview>[0][number];

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

  it("holds an object answer to the tool's schema for the missing fields; text always goes", () => {
    const tool = {
      name: 'schedule_redelivery',
      input: z.object({ orderId: z.string(), window: z.enum(['morning', 'afternoon']).optional() }),
    } as unknown as AnyTool;
    const tools = new Map([['schedule_redelivery', tool]]);
    const asking = {
      id: 'q1',
      question: 'Which window?',
      tool: 'schedule_redelivery',
      missingFields: ['window'],
    } as Parameters<typeof validateAnswer>[0];
    expect(decodedCode(() => validateAnswer(asking, { id: 'q1', answer: { foo: 'zzz' } }, tools))).toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('"window"'),
    });
    expect(decodedCode(() => validateAnswer(asking, { id: 'q1', answer: { window: 'evening' } }, tools))).toMatchObject(
      { code: 'invalid_input', message: expect.stringContaining('"window"') },
    );
    expect(
      decodedCode(() => validateAnswer(asking, { id: 'q1', answer: { window: 'morning', orderId: 'A-1' } }, tools)),
    ).toMatchObject({ code: 'invalid_input', message: expect.stringContaining('"orderId"') });
    expect(() => validateAnswer(asking, { id: 'q1', answer: { window: 'morning' } }, tools)).not.toThrow();
    expect(() => validateAnswer(asking, { id: 'q1', answer: 'mornings are best' }, tools)).not.toThrow();
  });

  it('refuses the same decision again, naming the one that counted; the handler takes a repeat as a no-op', () => {
    const decided = { '2.1': { argsHash: 'h1', decision: { type: 'accept' as const }, sent: '{"type":"accept"}' } };
    const again = { toolCallId: '2.1', argsHash: 'h1', decision: { type: 'accept' as const } };
    expect(decodedCode(() => validateReview([review], decided, new Map(), again))).toMatchObject({
      code: 'already_decided',
      message: expect.stringContaining('{"type":"accept"} counted'),
    });
    expect(validateReview([review], decided, new Map(), again, 'ignore')).toBeUndefined();
  });

  it('reads no code from details that carry none', () => {
    expect(refusalCodeOf(undefined)).toBeUndefined();
    expect(refusalCodeOf([{ code: 'made_up' }])).toBeUndefined();
    expect(refusalCodeOf(['text'])).toBeUndefined();
  });
});
