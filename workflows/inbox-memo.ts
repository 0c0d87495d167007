/**
 * What a run waits for, published in its memo (`cairnWaiting`) whenever that changes, so the
 * inbox is answered from visibility alone — one list, no Query per run: the question or the held
 * calls, since when the run waits, its agent and phase, the request that started it and the latest
 * exchange (cut short). Bounded: a summary larger than MAX_MEMO_CHARS drops the held calls'
 * arguments (`truncated`; the inbox then asks that one run). Cleared (null) when nobody is awaited.
 * One memo upsert per change of what is awaited, never per turn. Workflow-safe, deterministic.
 */
import { upsertMemo } from '@temporalio/workflow';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { RunState } from '../contract/run-state.js';
import { WAITING_MEMO, type WaitingSummary } from '../contract/waiting-memo.js';

const MAX_MEMO_CHARS = 32_000;
const REQUEST_CHARS = 1_000;
const EXCHANGE_CHARS = 600;

export class WaitingMemo {
  #key = '';
  #since = 0;

  constructor(
    private readonly request: string,
    private readonly tenant: string | undefined,
  ) {}

  /** Upserts the memo when what the run waits for changed since the last call. */
  publish(state: RunState, transcript: readonly TranscriptMessage[], now: number): void {
    const waiting = state.clarification !== null || state.reviews.length > 0;
    const key = waiting ? JSON.stringify([state.phase, state.clarification?.id ?? null, state.reviews.map((r) => [r.toolCallId, r.argsHash])]) : '';
    if (key === this.#key) return;
    this.#key = key;
    if (!waiting) {
      upsertMemo({ [WAITING_MEMO]: null });
      return;
    }
    this.#since = now;
    upsertMemo({ [WAITING_MEMO]: this.summary(state, transcript) });
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
    };
    if (JSON.stringify(full).length <= MAX_MEMO_CHARS) return full;
    const lean: WaitingSummary = { ...full, reviews: state.reviews.slice(0, 20).map((r) => ({ ...r, args: {} })), truncated: true };
    return JSON.stringify(lean).length <= MAX_MEMO_CHARS ? lean : { ...lean, reviews: [], clarification: null };
  }
}

/** The latest words of the person and of the agent, oldest first (at most two). */
function exchangeOf(transcript: readonly TranscriptMessage[]): WaitingSummary['exchange'] {
  const out: { role: 'user' | 'assistant'; text: string }[] = [];
  for (let i = transcript.length - 1; i >= 2 && out.length < 2; i--) {
    const m = transcript[i]!;
    if ((m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string' && m.content.trim() !== '') out.unshift({ role: m.role, text: cut(m.content, EXCHANGE_CHARS) });
  }
  return out;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
