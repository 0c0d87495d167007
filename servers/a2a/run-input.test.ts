import { describe, expect, it } from 'vitest';
import { answerSchema, describePending, parseReply, pendingInput, RunInputError, runInputError } from './run-input.js';
import type { RunState } from '../../workflows/contract/index.js';

function refused(fn: () => unknown): RunInputError {
  try {
    fn();
  } catch (error) {
    if (RunInputError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a RunInputError');
}

describe('answerSchema', () => {
  it('is text without missing fields, an object of them with', () => {
    expect(answerSchema({})).toEqual({ type: 'string', minLength: 1, description: 'The answer, as text.' });
    expect(
      answerSchema({ missingFields: ['window', 'count', 'gift'], exampleInput: { count: 2, gift: true } }),
    ).toEqual({
      type: 'object',
      properties: { window: { type: 'string' }, count: { type: 'number' }, gift: { type: 'boolean' } },
      required: ['window', 'count', 'gift'],
    });
  });

  it('uses a schema the run advertises as it is', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } } };
    expect(answerSchema({ missingFields: ['x'], schema })).toBe(schema);
  });
});

describe('parseReply', () => {
  it('reads answers, fields-as-answer and decisions in both forms', () => {
    expect(parseReply({ answer: 'morning', questionId: 'q1' }, true)).toEqual({
      kind: 'answer',
      answer: 'morning',
      questionId: 'q1',
    });
    expect(parseReply({ window: 'morning' }, true)).toEqual({ kind: 'answer', answer: { window: 'morning' } });
    expect(parseReply({ decision: 'accept', toolCallId: 't', argsHash: 'h' }, false)).toEqual({
      kind: 'review',
      toolCallId: 't',
      argsHash: 'h',
      decision: { type: 'accept' },
    });
    expect(parseReply({ decision: 'reject', reason: 'no', toolCallId: 't', argsHash: 'h' }, false)).toMatchObject({
      decision: { type: 'reject', reason: 'no' },
    });
    expect(
      parseReply({ decision: { type: 'edit', args: { a: 1 } }, toolCallId: 't', argsHash: 'h' }, false),
    ).toMatchObject({ decision: { type: 'edit', args: { a: 1 } } });
    expect(parseReply({ decision: 'respond', content: 'done', toolCallId: 't', argsHash: 'h' }, false)).toMatchObject({
      decision: { type: 'respond', content: 'done' },
    });
  });

  it.each([
    [null, true, 'A reply is a JSON object.'],
    [['a'], true, 'A reply is a JSON object.'],
    [{ window: 'x' }, false, 'Expected { answer }'],
    [{}, true, 'Expected { answer }'],
    [{ decision: 'accept', toolCallId: 't' }, false, 'names the held call'],
    [{ decision: 'maybe', toolCallId: 't', argsHash: 'h' }, false, 'one of accept, edit, respond, reject'],
    [{ decision: 'edit', toolCallId: 't', argsHash: 'h' }, false, 'new arguments'],
    [{ decision: 'respond', toolCallId: 't', argsHash: 'h' }, false, 'carries the result'],
    [{ decision: 'reject', reason: 3, toolCallId: 't', argsHash: 'h' }, false, '"reason" is text'],
    [{ answer: 'x', questionId: 3 }, true, '"questionId" is text'],
  ])('refuses %j (question pending: %s) as invalid_input', (value, questionPending, message) => {
    const error = refused(() => parseReply(value, questionPending));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain(message);
  });
});

describe('pendingInput', () => {
  const base = { clarification: null, reviews: [], paused: false } as unknown as RunState;

  it('is undefined when nothing waits; carries the question and the held calls with their allowed decisions', () => {
    expect(pendingInput(base)).toBeUndefined();
    const state = {
      ...base,
      clarification: { id: 'q1', question: 'Which window?', missingFields: ['window'] },
      reviews: [
        {
          toolCallId: 't1',
          name: 'wire',
          args: { amount: 5 },
          argsHash: 'h1',
          allowed: ['accept', 'reject'],
          description: 'Check it.',
        },
        { toolCallId: 't2', name: 'refund', args: {}, argsHash: 'h2' },
      ],
    } as unknown as RunState;
    const pending = pendingInput(state)!;
    expect(pending.question).toMatchObject({ id: 'q1', schema: { type: 'object', required: ['window'] } });
    expect(pending.reviews.map((r) => r.allowed)).toEqual([
      ['accept', 'reject'],
      ['accept', 'edit', 'respond', 'reject'],
    ]);
    expect(describePending(pending)).toBe(
      'Question q1: Which window?\nReview t1: wire({"amount":5}) awaits a decision (accept, reject) — Check it.; argsHash h1.\nReview t2: refund({}) awaits a decision (accept, edit, respond, reject); argsHash h2.',
    );
  });
});

describe('runInputError', () => {
  it("maps the run's refusals by code, unknown runs and closed runs; other errors pass through", () => {
    const stale = runInputError(
      {
        name: 'WorkflowUpdateFailedError',
        cause: { type: 'HumanInputError', message: 'Stale decision', details: [{ code: 'stale_review' }] },
      },
      'wf',
    ) as RunInputError;
    expect([stale.code, stale.message]).toEqual(['stale_review', 'Stale decision']);
    expect((runInputError({ name: 'WorkflowNotFoundError' }, 'wf') as RunInputError).code).toBe('unknown_run');
    expect((runInputError(new Error('workflow execution already completed'), 'wf') as RunInputError).code).toBe(
      'closed',
    );
    expect((runInputError({ code: 8 }, 'wf') as RunInputError).code).toBe('busy');
    const other = new Error('boom');
    expect(runInputError(other, 'wf')).toBe(other);
  });
});
