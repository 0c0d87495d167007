import { describe, expect, it } from 'vitest';
import type { EvalEvent } from '../../shared/eval/recording.js';
import { asksBeyond, askFailure, openRecording, outcomeFailure, settleOpenCase, WAITING } from './open-case.js';
import type { LaneReport, NewAsk } from './eval-results.js';

const events: EvalEvent[] = [
  { type: 'started', workflowType: 'agentRun', input: { agent: 'shop', prompt: 'Credit A-1.' }, time: 1000 },
  { type: 'activity_scheduled', id: 5, activityType: 'callModel', input: { toolNames: ['issue_credit'] } },
  {
    type: 'activity_completed',
    scheduledId: 5,
    result: { response: { toolCalls: [{ name: 'issue_credit', arguments: '{"orderId":"A-1"}' }] } },
  },
];

const review: NewAsk = { kind: 'review', text: 'issue_credit {"orderId":"A-1"}' };

function lane(asks: NewAsk[], outcome: string, extra: Partial<LaneReport> = {}): LaneReport {
  return {
    workflowId: 'w',
    trace: {
      calls: [],
      turns: 1,
      repairs: 0,
      backOffs: 0,
      disabledTools: [],
      clarifications: 0,
      reviews: asks.filter((a) => a.kind === 'review').length,
      budgets: 0,
      outcome,
      answer: outcome === 'answered' ? 'Done.' : null,
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      durationMs: 5,
    },
    scores: [],
    pass: false,
    failures: [...asks.map(askFailure), outcomeFailure(outcome, 'open')],
    newAsks: asks,
    served: { recorded: 0, nearest: 0, live: 0, refused: 0 },
    mismatches: [],
    misfits: [],
    reused: false,
    ...extra,
  };
}

describe('a case from a run still open', () => {
  it('reads the history so far as a recording that ends open, the same every time it is read', () => {
    const recording = openRecording(events);
    expect(recording.end).toEqual({ status: 'open' });
    expect(recording.modelTurns).toHaveLength(1);
    expect(recording.durationMs).toBe(0);
    expect(openRecording(events)).toEqual(recording);
    const closed = openRecording([...events, { type: 'closed', status: 'completed', result: {}, time: 2000 }]);
    expect(closed.end.status).toBe('completed');
  });

  it('takes the wait the baseline stops at as the recording’s: no new ask, no failure for “recording ended”', () => {
    const settled = settleOpenCase(
      openRecording(events),
      { baseline: lane([review], 'cancelled'), candidate: lane([review], 'cancelled') },
      false,
    );
    expect(settled.recorded).toMatchObject({ outcome: WAITING, reviews: 1, answer: null, turns: 1 });
    for (const item of [settled.baseline, settled.candidate]) {
      expect(item).toMatchObject({ newAsks: [], failures: [], pass: true });
      expect(item.trace.outcome).toBe(WAITING);
    }
  });

  it('counts an ask beyond the wait as new, and a run that no longer waits as another outcome', () => {
    const other: NewAsk = { kind: 'review', text: 'issue_credit {"orderId":"a-1"}' };
    const asked = settleOpenCase(
      openRecording(events),
      { baseline: lane([review], 'cancelled'), candidate: lane([other], 'cancelled') },
      false,
    );
    expect(asked.candidate).toMatchObject({ newAsks: [other], failures: [askFailure(other)], pass: false });
    const answered = settleOpenCase(
      openRecording(events),
      { baseline: lane([review], 'cancelled'), candidate: lane([], 'answered') },
      false,
    );
    expect(answered.candidate.failures).toEqual([outcomeFailure('answered', WAITING)]);
    // With scorers, the outcome alone fails nothing.
    const scored = settleOpenCase(
      openRecording(events),
      { baseline: lane([review], 'cancelled'), candidate: lane([], 'answered') },
      true,
    );
    expect(scored.candidate).toMatchObject({ failures: [], pass: true });
  });

  it('takes each wait away once', () => {
    expect(asksBeyond([review, review], [review])).toEqual([review]);
    expect(asksBeyond([review], [])).toEqual([review]);
  });
});
