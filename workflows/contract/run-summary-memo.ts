/**
 * A run's summary in its memo (`cairnRun`), so a list of runs (the runs page) shows each run's
 * request, phase, turns, tokens, cost and agent version from visibility alone, with no Query per
 * run. Written by workflows/inbox-memo.ts in the upserts that publish what the run waits for, and by
 * run-end.ts in the run's last upsert, beside how it ended (`cairnEnded`, ended-memo.ts): no upsert
 * of its own. servers/http/run-listing.ts reads it. A few hundred bytes: the request is cut to
 * SUMMARY_REQUEST_CHARS. Pure, workflow-safe.
 */
import type { RunState } from './run-state.js';

export const RUN_SUMMARY_MEMO = 'cairnRun';
/** The longest request the summary keeps (the inbox's waiting memo keeps a longer one). */
export const SUMMARY_REQUEST_CHARS = 200;

export interface RunSummary {
  readonly v: 1;
  /** The request that started the run (its first user message), cut short. */
  readonly request: string;
  /** The run's phase when it published this (`done` once finished). */
  readonly phase: string;
  /** Model turns, in the whole chain. */
  readonly turns: number;
  readonly tokensIn: number;
  readonly tokensOut: number;
  /** In the price table's unit (US dollars); 0 when the worker knows no price. */
  readonly cost: number;
  /** Epoch ms (workflow time): since when it waits on a person, while it does. */
  readonly waitingSince?: number;
  /** Epoch ms (workflow time): when it finished, once it has. */
  readonly endedAt?: number;
  /** The version of the agent it runs (shared/agent/agent-version.ts). */
  readonly agentVersion?: string;
  /** Its agent is auto-upgrade: it moves to a newer build at a safe point (docs/upgrades.md). */
  readonly upgrades?: true;
}

/** The summary of `state`; `at` is when the run began to wait (waiting) or finished (phase `done`). */
export function runSummary(
  state: RunState,
  request: string,
  at: { waitingSince?: number; endedAt?: number },
  upgrades = false,
): RunSummary {
  const usage = state.budget?.usage;
  return {
    v: 1,
    request: cut(request),
    phase: state.phase,
    turns: state.turn,
    tokensIn: usage?.inputTokens ?? 0,
    tokensOut: usage?.outputTokens ?? 0,
    // Rounded: a float sum's tail (0.30000000000000004) is bytes in every memo for nothing.
    cost: Math.round((usage?.costUsd ?? 0) * 1e6) / 1e6,
    ...(at.waitingSince !== undefined && { waitingSince: at.waitingSince }),
    ...(at.endedAt !== undefined && { endedAt: at.endedAt }),
    ...(state.agentVersion !== undefined && { agentVersion: state.agentVersion }),
    ...(upgrades && { upgrades: true as const }),
  };
}

/** What a client writes in the start memo: the request, before the run has done anything. */
export function startedSummary(request: string): RunSummary {
  return { v: 1, request: cut(request), phase: 'started', turns: 0, tokensIn: 0, tokensOut: 0, cost: 0 };
}

/** The summary in a memo, when it is one this version reads. */
export function runSummaryOf(memo: Record<string, unknown> | undefined): RunSummary | undefined {
  const value = memo?.[RUN_SUMMARY_MEMO] as Partial<RunSummary> | null | undefined;
  return value?.v === 1 && typeof value.request === 'string' && typeof value.turns === 'number'
    ? (value as RunSummary)
    : undefined;
}

function cut(request: string): string {
  return request.length <= SUMMARY_REQUEST_CHARS ? request : `${request.slice(0, SUMMARY_REQUEST_CHARS - 1)}…`;
}
