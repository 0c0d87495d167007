/**
 * What a run waits for, published in its memo (`cairnWaiting`) whenever that changes, so the
 * inbox is answered from visibility alone — one list, no Query per run: the question, the held
 * calls or the budget request, since when the run waits, its agent and phase, the request that
 * started it and the latest exchange (cut short). Bounded: a summary larger than MAX_MEMO_CHARS
 * drops the held calls' arguments (`truncated`; the inbox then asks that one run). Cleared (null) when nobody is awaited.
 * A run that continued as new starts without what the run before it published (Temporal copies the
 * memo it was started with, not what was upserted): it publishes its own at once, waiting since the
 * wait began in an earlier run of the chain (the planner's `waitingSince`, carried in its state).
 * One memo upsert per change of what is awaited, never per turn. Each of these upserts also carries
 * the run's summary (`cairnRun`: request, phase, turns, tokens, cost) for the runs page; the run's
 * last upsert (run-end.ts, with how it ended) carries it once more. Workflow-safe, deterministic.
 */
import { upsertMemo } from '@temporalio/workflow';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { RunState } from './contract/run-state.js';
import { WAITING_MEMO, type WaitingSummary } from './contract/waiting-memo.js';
import { RUN_SUMMARY_MEMO, runSummary } from './contract/run-summary-memo.js';

const MAX_MEMO_CHARS = 32_000;
const REQUEST_CHARS = 1_000;
const EXCHANGE_CHARS = 600;

export class WaitingMemo {
  #key = '';
  #since = 0;
  /** A continued run that has not published yet: a wait it starts with began in an earlier run. */
  #continued: boolean;

  constructor(
    private readonly request: string,
    private readonly tenant: string | undefined,
    continued = false,
    /** Its agent moves to a newer build at a safe point (auto-upgrade): `cairn deploy` tells such runs. */
    private readonly upgrades = false,
  ) {
    this.#continued = continued;
  }

  /**
   * Upserts the memo when what the run waits for changed since the last call. `waitingSince`: the
   * planner's (when the wait began, carried across continue-as-new), for a continued run's first wait.
   */
  publish(
    state: RunState,
    transcript: readonly TranscriptMessage[],
    now: number,
    waitingSince: number | null = null,
  ): void {
    const budget = this.#budgetPending(state);
    const waiting = state.clarification !== null || state.reviews.length > 0 || budget !== null;
    const key = waiting ? waitingKey(state.phase, state.clarification, state.reviews, budget) : '';
    const continued = this.#continued;
    this.#continued = false;
    if (key === this.#key) return;
    this.#key = key;
    if (waiting) this.#since = continued && waitingSince !== null ? waitingSince : now;
    upsertMemo({
      [WAITING_MEMO]: waiting ? this.summary(state, transcript) : null,
      [RUN_SUMMARY_MEMO]: this.#runSummary(state, waiting, state.phase === 'done', now),
    });
  }

  #runSummary(state: RunState, waiting: boolean, done: boolean, now: number) {
    return runSummary(
      state,
      this.request,
      { ...(waiting && { waitingSince: this.#since }), ...(done && { endedAt: now }) },
      this.upgrades,
    );
  }

  /** The pending budget request's id; null for none. */
  #budgetPending(state: RunState): string | null {
    return state.budget?.pending?.id ?? null;
  }

  summary(state: RunState, transcript: readonly TranscriptMessage[]): WaitingSummary {
    const full: WaitingSummary = {
      v: 1,
      agent: state.agent,
      phase: state.phase,
      since: this.#since,
      ...(this.tenant !== undefined && { tenant: this.tenant }),
      request: cut(this.request, REQUEST_CHARS),
      exchange: exchangeOf(transcript),
      clarification: state.clarification,
      reviews: state.reviews,
      ...(state.budget?.pending && { budget: state.budget }),
    };
    if (JSON.stringify(full).length <= MAX_MEMO_CHARS) return full;
    const lean: WaitingSummary = {
      ...full,
      reviews: state.reviews.slice(0, 20).map(({ change: _change, ...r }) => ({ ...r, args: {} })),
      truncated: true,
    };
    return JSON.stringify(lean).length <= MAX_MEMO_CHARS ? lean : { ...lean, reviews: [], clarification: null };
  }
}

/** What identifies a wait: the phase, the question, the held calls (with their arguments' hashes), the budget request. */
function waitingKey(
  phase: string,
  clarification: RunState['clarification'],
  reviews: RunState['reviews'],
  budget: string | null,
): string {
  return JSON.stringify([
    phase,
    clarification?.id ?? null,
    reviews.map((r) => [r.toolCallId, r.argsHash, r.change !== undefined]),
    ...(budget ? [budget] : []),
  ]);
}

/** The latest words of the person and of the agent, oldest first (at most two). */
function exchangeOf(transcript: readonly TranscriptMessage[]): WaitingSummary['exchange'] {
  const out: { role: 'user' | 'assistant'; text: string }[] = [];
  for (let i = transcript.length - 1; i >= 2 && out.length < 2; i--) {
    const m = transcript[i]!;
    if ((m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string' && m.content.trim() !== '')
      out.unshift({ role: m.role, text: cut(m.content, EXCHANGE_CHARS) });
  }
  return out;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
