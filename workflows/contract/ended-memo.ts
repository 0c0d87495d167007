/**
 * How a run ended, published once in its memo (`cairnEnded`) as it finishes, so a list of runs
 * (A2A ListTasks, MCP tasks/list) tells a finished run's status from visibility alone: Temporal's
 * `Completed` is also the status of a run that ended without its answer (a spent budget, a cap) or
 * was cancelled gracefully. One memo upsert per run, at its end, never per turn; a long answer is
 * left out (a single read takes it from the run's result). Part of the run's contract
 * (workflows/contract/index.ts); workflows/run-end.ts writes it. Pure, workflow-safe.
 */
import type { RunState } from './run-state.js';
import { statusOfState } from './run-status.js';

export const ENDED_MEMO = 'cairnEnded';
/** The `patched()` id that guards the upsert (runs recorded before it replay without it). */
export const ENDED_MEMO_PATCH = 'cairn-ended-memo';
/** The longest answer the memo keeps; a longer one is left out. */
export const ENDED_ANSWER_CHARS = 1_000;

export interface EndedSummary {
  readonly v: 1;
  readonly agent: string;
  /** The run's status as the protocols name it (run-status.ts): a run publishes this when it ends. */
  readonly status: 'completed' | 'failed' | 'canceled';
  /** Why it failed or was canceled. */
  readonly reason?: string;
  /** The final answer, when it is at most ENDED_ANSWER_CHARS long. */
  readonly answer?: string;
  /** Model turns and tool calls, in the whole chain. */
  readonly turn: number;
  readonly toolCalls: number;
}

/** What the run publishes as it ends: the status its final state gives (a state still working says completed). */
export function endedSummary(state: RunState): EndedSummary {
  const of = statusOfState(state);
  const status = of.status === 'failed' || of.status === 'canceled' ? of.status : 'completed';
  return {
    v: 1,
    agent: state.agent,
    status,
    ...(of.reason !== undefined && { reason: of.reason.slice(0, ENDED_ANSWER_CHARS) }),
    ...(of.answer !== undefined && of.answer.length <= ENDED_ANSWER_CHARS && { answer: of.answer }),
    turn: state.turn,
    toolCalls: state.toolCalls,
  };
}

/** The summary in a memo, when it is one this version reads. */
export function endedSummaryOf(memo: Record<string, unknown> | undefined): EndedSummary | undefined {
  const value = memo?.[ENDED_MEMO] as Partial<EndedSummary> | null | undefined;
  return value?.v === 1 && typeof value.status === 'string' ? (value as EndedSummary) : undefined;
}
