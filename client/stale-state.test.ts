import { describe, expect, it } from 'vitest';
import { statusOfState } from '../workflows/contract/run-status.js';
import { endedSummary, type RunState, type WaitingSummary } from '../workflows/contract/index.js';
import { staleRunState, staleTranscript, type RunRecord } from './stale-state.js';
import { boundedRead } from './bounded-read.js';

const base: RunRecord = {
  workflowId: 'w-1',
  runId: 'r-1',
  status: 'RUNNING',
  startTime: new Date(0),
  memo: {},
  input: { agent: 'support', prompt: 'Refund A-1.' },
};

const review = {
  toolCallId: '1.1',
  name: 'issue_refund',
  args: { orderId: 'A-1', amount: 80 },
  argsHash: 'h1',
  reason: 'approval',
} as unknown as RunState['reviews'][number];

const waiting: WaitingSummary = {
  v: 1,
  agent: 'support',
  phase: 'awaiting_review',
  since: 5,
  request: 'Refund A-1.',
  exchange: [],
  clarification: null,
  reviews: [review],
};

describe('a state read without the run’s worker', () => {
  it('is marked stale, names the agent from the start input, and a working run is working', () => {
    const state = staleRunState({ ...base, phaseAttribute: 'running' });
    expect(state).toMatchObject({ stale: true, agent: 'support', phase: 'model', turn: 0, steps: [] });
    expect(statusOfState(state).status).toBe('working');
  });

  it('waits for what the memo says it waits for: input required, with the held call', () => {
    const state = staleRunState({ ...base, phaseAttribute: 'awaiting_review', memo: { cairnWaiting: waiting } });
    expect(state.phase).toBe('awaiting_review');
    expect(state.reviews).toEqual([review]);
    const status = statusOfState(state);
    expect(status.status).toBe('input_required');
    expect(status.pending?.reviews[0]).toMatchObject({ toolCallId: '1.1', argsHash: 'h1' });
  });

  it('a cleared memo (null) waits for nobody; a phase name it does not know is not taken', () => {
    expect(staleRunState({ ...base, memo: { cairnWaiting: null }, phaseAttribute: 'backing_off' }).phase).toBe(
      'backing_off',
    );
    expect(staleRunState({ ...base, phaseAttribute: 'lunch' }).phase).toBe('model');
  });

  it('a completed run reads its result: answered, ended early, or cancelled', () => {
    const answered = staleRunState({
      ...base,
      status: 'COMPLETED',
      result: { answer: 'Done.', reason: null, outcome: { status: 'answered' }, turns: 3, toolCalls: 2, generation: 0 },
    });
    expect(answered).toMatchObject({ phase: 'done', answer: 'Done.', turn: 3, toolCalls: 2 });
    expect(statusOfState(answered)).toEqual({ status: 'completed', answer: 'Done.' });
    const spent = staleRunState({
      ...base,
      status: 'COMPLETED',
      result: {
        answer: 'Partial.',
        reason: 'budget used up',
        outcome: { status: 'ended', code: 'budget_exhausted', message: 'budget used up' },
        turns: 1,
        toolCalls: 0,
        generation: 0,
      },
    });
    expect(statusOfState(spent).status).toBe('failed');
    const cancelled = staleRunState({
      ...base,
      status: 'COMPLETED',
      result: {
        answer: 'Stopped.',
        reason: 'cancelled over A2A',
        outcome: { status: 'ended', code: 'cancelled', message: 'cancelled over A2A' },
        turns: 1,
        toolCalls: 0,
        generation: 0,
      },
    });
    expect(statusOfState(cancelled)).toMatchObject({ status: 'canceled', reason: 'cancelled over A2A' });
  });

  it('a failed run says why, as its own state would', () => {
    const state = staleRunState({
      ...base,
      status: 'FAILED',
      failure: { type: 'model_misconfigured', message: 'no key' },
    });
    expect(statusOfState(state)).toEqual({ status: 'failed', reason: 'no key' });
  });

  it('a list entry (no history) takes the agent and counts from the ended memo', () => {
    const ended = endedSummary({ ...staleRunState(base), phase: 'done', answer: 'Done.', turn: 4, toolCalls: 1 });
    expect(ended).toMatchObject({ v: 1, status: 'completed', answer: 'Done.', turn: 4, agent: 'support' });
    const { input: _input, ...listed } = base;
    expect(staleRunState({ ...listed, status: 'COMPLETED', memo: { cairnEnded: ended } })).toMatchObject({
      agent: 'support',
      turn: 4,
      answer: 'Done.',
    });
  });

  it('the ended memo leaves a long answer out, and keeps a failure’s reason', () => {
    const long = 'x'.repeat(1_001);
    expect(endedSummary({ ...staleRunState(base), phase: 'done', answer: long }).answer).toBeUndefined();
    expect(endedSummary({ ...staleRunState(base), failure: { type: 't', message: 'broke' } })).toMatchObject({
      status: 'failed',
      reason: 'broke',
    });
  });

  it('the transcript is what the run started with, then its answer once completed', () => {
    expect(staleTranscript(base)).toEqual([{ role: 'user', content: 'Refund A-1.' }]);
    expect(
      staleTranscript({
        ...base,
        status: 'COMPLETED',
        result: {
          answer: 'Done.',
          reason: null,
          outcome: { status: 'answered' },
          turns: 1,
          toolCalls: 0,
          generation: 0,
        },
      }),
    ).toEqual([
      { role: 'user', content: 'Refund A-1.' },
      { role: 'assistant', content: 'Done.', toolCalls: [] },
    ]);
  });
});

describe('a bounded read', () => {
  const never = () => new Promise<string>(() => {});
  it('takes the answer that comes in time, and asks no fallback', async () => {
    let fell = 0;
    const got = await boundedRead(
      async () => 'fresh',
      async () => (fell++, 'kept'),
      1_000,
    );
    expect(got).toEqual({ value: 'fresh', answered: true, missed: false });
    expect(fell).toBe(0);
  });

  it('falls back at the deadline, not later', async () => {
    const started = Date.now();
    const got = await boundedRead(never, async () => 'kept', 300);
    expect(got).toEqual({ value: 'kept', answered: false, missed: true });
    // Bounded (a never-answered Query would hang the test); generous for a loaded machine.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('falls back at once on an error, but an unknown run stays unknown', async () => {
    const failed = await boundedRead(
      () => Promise.reject(new Error('no worker replayed it')),
      async () => 'kept',
      10_000,
    );
    expect(failed).toEqual({ value: 'kept', answered: false, missed: false });
    const notFound = Object.assign(new Error('gone'), { name: 'WorkflowNotFoundError' });
    await expect(
      boundedRead(
        () => Promise.reject(notFound),
        async () => 'kept',
        10_000,
      ),
    ).rejects.toBe(notFound);
  });

  it("when both fail, says the Query's error, or the fallback's when the server failed the Query", async () => {
    const undecodable = new Error('Unknown encoding: binary/encrypted');
    const expired = Object.assign(new Error('Failed to query Workflow'), { name: 'ServiceError' });
    const fallback = () => Promise.reject(new Error('history: Unknown encoding: binary/encrypted'));
    await expect(boundedRead(() => Promise.reject(undecodable), fallback, 10_000)).rejects.toBe(undecodable);
    await expect(boundedRead(() => Promise.reject(expired), fallback, 10_000)).rejects.toThrow(/^history: Unknown/);
  });

  it('a deadline past what a timer can hold (Infinity) waits for the answer', async () => {
    const slow = () => new Promise<string>((resolve) => setTimeout(() => resolve('fresh'), 300));
    for (const deadlineMs of [Number.POSITIVE_INFINITY, 2 ** 32])
      expect(await boundedRead(slow, async () => 'kept', deadlineMs)).toEqual({
        value: 'fresh',
        answered: true,
        missed: false,
      });
  });

  it('a deadline of 0 does not ask', async () => {
    let asked = 0;
    const got = await boundedRead(
      async () => (asked++, 'fresh'),
      async () => 'kept',
      0,
    );
    expect(got.value).toBe('kept');
    expect(asked).toBe(0);
  });
});
