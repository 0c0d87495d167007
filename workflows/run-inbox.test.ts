/** What a run's inbox carries into continue-as-new: what the next run acts on, and a bounded memory of the rest. */
import { describe, expect, it } from 'vitest';
import { planStart, resolvePolicy, type PlannerState } from '../planner/index.js';
import type { DecidedReview } from '../shared/human-input/review-decision.js';
import {
  MAX_CARRIED_CLOSED_DECISION_CHARS,
  MAX_CARRIED_CLOSED_DECISIONS,
  RunInbox,
  carriedDecisions,
} from './run-inbox.js';

const accept = (id: string): DecidedReview => ({
  argsHash: `h${id}`,
  decision: { type: 'accept' },
  sent: '{"type":"accept"}',
});
const respond = (id: string, chars: number): DecidedReview => {
  const content = 'x'.repeat(chars);
  return {
    argsHash: `h${id}`,
    decision: { type: 'respond', content },
    sent: JSON.stringify({ type: 'respond', content }),
  };
};

/** A state waiting for reviews of `pending` (only their ids matter here). */
function awaiting(pending: readonly string[]): PlannerState {
  const { state } = planStart({ policy: resolvePolicy(undefined), tools: ['refund'], now: 0, runKey: 'run' });
  return {
    ...state,
    phase: 'awaiting_review',
    reviews: pending.map((toolCallId) => ({ toolCallId, name: 'refund', args: {}, argsHash: `h${toolCallId}` })),
  };
}

/** `n` decisions on closed reviews of turns 1…n, oldest first. */
function closed(n: number, decide: (id: string) => DecidedReview = accept): Record<string, DecidedReview> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`${i + 1}.1`, decide(`${i + 1}.1`)]));
}

describe('carriedDecisions', () => {
  it('carries every decision on a pending review, however many and however large', () => {
    const big = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`50.${i + 1}`, respond(`50.${i + 1}`, 19_000)]),
    );
    expect(carriedDecisions(big, Object.keys(big))).toEqual(big);
  });

  it('of closed reviews carries only the newest MAX_CARRIED_CLOSED_DECISIONS, in the order they were taken', () => {
    const decisions = closed(100);
    const carried = carriedDecisions(decisions, []);
    expect(Object.keys(carried)).toEqual(
      Array.from({ length: MAX_CARRIED_CLOSED_DECISIONS }, (_, i) => `${100 - MAX_CARRIED_CLOSED_DECISIONS + i + 1}.1`),
    );
    expect(Object.values(carried)).toEqual(Object.values(decisions).slice(-MAX_CARRIED_CLOSED_DECISIONS));
  });

  it('of closed reviews carries at most MAX_CARRIED_CLOSED_DECISION_CHARS of JSON: large ones crowd out older ones', () => {
    // About 6,100 characters of JSON each (the content twice: as the decision and as sent): three fit.
    const decisions = closed(10, (id) => respond(id, 3_000));
    const carried = carriedDecisions(decisions, []);
    expect(JSON.stringify(Object.values(carried)).length).toBeLessThanOrEqual(MAX_CARRIED_CLOSED_DECISION_CHARS + 10);
    expect(Object.keys(carried)).toEqual(['8.1', '9.1', '10.1']);
    // One too large to fit is not carried, and nothing older than it either.
    expect(carriedDecisions({ ...closed(3), '4.1': respond('4.1', 20_000) }, [])).toEqual({});
  });

  it('keeps pending ones beside the newest closed ones, in the order taken', () => {
    const decisions = { ...closed(30), '31.1': accept('31.1'), '31.2': accept('31.2') };
    const carried = carriedDecisions(decisions, ['31.1', '31.2', '31.3']);
    expect(Object.keys(carried)).toHaveLength(MAX_CARRIED_CLOSED_DECISIONS + 2);
    expect(Object.keys(carried).slice(-3)).toEqual(['30.1', '31.1', '31.2']);
    expect(carried).not.toHaveProperty('1.1');
  });
});

describe('RunInbox.carried', () => {
  it('stays bounded along a chain of hand-overs that each decided reviews, where it grew with every run before', () => {
    let carried: ReturnType<RunInbox['carried']> = {};
    for (let run = 1; run <= 50; run++) {
      const inbox = new RunInbox(carried as never);
      // Each run decides two reviews of ~4,100 characters of JSON, then hands over waiting for a third.
      Object.assign(inbox.decisions, {
        [`${run}.1`]: respond(`${run}.1`, 2_000),
        [`${run}.2`]: respond(`${run}.2`, 2_000),
        [`${run}.3`]: accept(`${run}.3`),
      });
      carried = inbox.carried(awaiting([`${run}.3`]));
      expect(JSON.stringify(carried).length).toBeLessThan(MAX_CARRIED_CLOSED_DECISION_CHARS + 1_000);
      // The pending review's decision always goes on to the next run.
      expect(carried.decisions?.[`${run}.3`]).toEqual(accept(`${run}.3`));
    }
    // The newest closed ones that fit 20,000 characters, and the pending one.
    expect(Object.keys(carried.decisions!)).toEqual(['48.3', '49.1', '49.2', '49.3', '50.1', '50.2', '50.3']);
  });

  it('carries nothing for a run with no decisions, answer or pause', () => {
    expect(new RunInbox(undefined).carried(awaiting([]))).toEqual({});
  });
});
