/** The run's check of an answer: what is pending, what the question asked, the tool's schema for each field. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AnyTool } from '../tools/define-tool.js';
import { MAX_HUMAN_INPUT_CHARS } from '../size-limits.js';
import { checkAnswer } from './answer.js';
import type { PendingClarification } from './pending-clarification.js';

const plain: PendingClarification = { id: 'q1', question: 'Which order?' };
const asking: PendingClarification = {
  id: 'q1',
  question: 'Which window, and where?',
  tool: 'schedule_redelivery',
  missingFields: ['window', 'address.zip'],
};
const tools = () =>
  new Map([
    [
      'schedule_redelivery',
      {
        name: 'schedule_redelivery',
        input: z.object({
          orderId: z.string(),
          window: z.enum(['morning', 'afternoon']),
          address: z.object({ zip: z.string().regex(/^\d{5}$/, 'five digits') }),
        }),
      } as unknown as AnyTool,
    ],
  ]);
const refused = (...args: Parameters<typeof checkAnswer>) => {
  const checked = checkAnswer(...args);
  return checked.ok ? 'taken' : { message: checked.message, code: checked.code };
};

describe('checkAnswer', () => {
  it('takes text, and the fields the question asked when each fits the tool', () => {
    expect(checkAnswer(plain, { id: 'q1', answer: 'A-1' })).toEqual({ ok: true, value: 'A-1' });
    expect(checkAnswer(plain, { id: 'q1', answer: { any: 'thing' } })).toEqual({ ok: true, value: { any: 'thing' } });
    const fields = { window: 'morning', 'address.zip': '12345' };
    expect(checkAnswer(asking, { id: 'q1', answer: fields }, tools())).toEqual({ ok: true, value: fields });
    expect(checkAnswer(asking, { id: 'q1', answer: 'mornings, at 12345' }, tools())).toMatchObject({ ok: true });
    // Without the tool at hand, only the fields' names are checked.
    expect(checkAnswer(asking, { id: 'q1', answer: { window: 'never', 'address.zip': 'x' } })).toMatchObject({
      ok: true,
    });
  });

  it('refuses an answer when nothing, or something else, is pending', () => {
    expect(refused(null, { id: 'q1', answer: 'x' })).toEqual({
      message: 'No clarification is pending.',
      code: 'not_pending',
    });
    expect(refused(plain, { id: 'q9', answer: 'x' })).toEqual({
      message: 'Unknown clarification id "q9"; the pending one is "q1".',
      code: 'not_pending',
    });
    expect(refused(plain, null as never)).toEqual({ message: 'Expected { id, answer }.', code: 'invalid_input' });
    expect(refused(plain, 'q1' as never)).toEqual({ message: 'Expected { id, answer }.', code: 'invalid_input' });
  });

  it('refuses empty, oversized and shapeless answers', () => {
    expect(refused(plain, { id: 'q1', answer: '  ' })).toEqual({
      message: 'The answer is empty.',
      code: 'invalid_input',
    });
    const long = 'x'.repeat(MAX_HUMAN_INPUT_CHARS + 1);
    expect(refused(plain, { id: 'q1', answer: long })).toMatchObject({
      message: `The answer is longer than ${MAX_HUMAN_INPUT_CHARS} characters.`,
    });
    expect(checkAnswer(plain, { id: 'q1', answer: 'x'.repeat(MAX_HUMAN_INPUT_CHARS) }).ok).toBe(true);
    expect(refused(plain, { id: 'q1', answer: { note: long } })).toMatchObject({
      message: `The answer is larger than ${MAX_HUMAN_INPUT_CHARS} characters.`,
    });
    expect(checkAnswer(plain, { id: 'q1', answer: { n: 'x'.repeat(MAX_HUMAN_INPUT_CHARS - 8) } }).ok).toBe(true);
    for (const [answer, what] of [
      [['a'], 'an array'],
      [{}, 'object'],
      [5, 'number'],
      [null, 'object'],
      [true, 'boolean'],
    ] as const)
      expect(refused(plain, { id: 'q1', answer: answer as never })).toEqual({
        message: `The answer must be non-empty text or an object of fields, not ${what}.`,
        code: 'invalid_input',
      });
  });

  it('holds an object answer to the fields the question asked, each to the tool’s schema for it', () => {
    expect(refused(asking, { id: 'q1', answer: { window: 'morning' } }, tools())).toEqual({
      message: 'The answer lacks "address.zip": answer with "window", "address.zip", or in words.',
      code: 'invalid_input',
    });
    expect(
      refused(asking, { id: 'q1', answer: { window: 'morning', 'address.zip': '12345', orderId: 'A' } }, tools()),
    ).toEqual({
      message: 'The answer has "orderId", which the question did not ask; it asks for "window", "address.zip".',
      code: 'invalid_input',
    });
    expect(refused(asking, { id: 'q1', answer: { window: 'evening', 'address.zip': '12345' } }, tools())).toMatchObject(
      {
        message: expect.stringMatching(/^The answer's "window" is invalid for schedule_redelivery: /),
      },
    );
    expect(refused(asking, { id: 'q1', answer: { window: 'morning', 'address.zip': '12' } }, tools())).toEqual({
      message: `The answer's "address.zip" is invalid for schedule_redelivery: five digits.`,
      code: 'invalid_input',
    });
    expect(refused(asking, { id: 'q1', answer: { note: 'x' } }, tools())).toMatchObject({
      message: 'The answer lacks "window", "address.zip": answer with "window", "address.zip", or in words.',
    });
    const longKey = 'k'.repeat(150);
    expect(
      refused(asking, { id: 'q1', answer: { window: 'morning', 'address.zip': '12345', [longKey]: 1, b: 2 } }, tools()),
    ).toMatchObject({
      message: `The answer has "${'k'.repeat(100)}", "b", which the question did not ask; it asks for "window", "address.zip".`,
    });
    // A schema that says no without saying why still refuses.
    const mute = new Map([
      [
        'schedule_redelivery',
        {
          name: 'schedule_redelivery',
          input: { shape: { window: { safeParse: () => ({ success: false, error: { issues: [] } }) } } },
        } as unknown as AnyTool,
      ],
    ]);
    expect(
      refused({ ...asking, missingFields: ['window'] }, { id: 'q1', answer: { window: 'x' } }, mute),
    ).toMatchObject({
      message: `The answer's "window" is invalid for schedule_redelivery: invalid.`,
    });
    // A field the tool's schema does not have (a dotted path through a non-object) is taken as sent.
    const odd = { ...asking, missingFields: ['orderId.first', 'note'] };
    expect(checkAnswer(odd, { id: 'q1', answer: { 'orderId.first': 1, note: 2 } }, tools()).ok).toBe(true);
    // A question about a tool the run no longer has checks names only.
    const gone = { ...asking, tool: 'gone' };
    expect(checkAnswer(gone, { id: 'q1', answer: { window: 'x', 'address.zip': 'y' } }, tools()).ok).toBe(true);
  });
});
