/**
 * A run's state as Temporal keeps it, for reads that get no answer from the run's worker (the
 * `state` Query missed its deadline) and for lists, which never ask runs: its status, the
 * `CairnAgent` / `CairnPhase` search attributes and the memos the run publishes (`cairnWaiting`
 * while a person is awaited, `cairnEnded` once it ended), and — for a single run — its start input
 * and its result from history. Marked `stale: true`: it may be behind the run. Pure; Node-only
 * (client side) only by the types it reads.
 */
import { runSummaryOf } from '../workflows/contract/run-summary-memo.js';
import type { WorkflowExecutionInfo, WorkflowExecutionStatusName } from '@temporalio/client';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import {
  CairnAgent,
  CairnPhase,
  endedSummaryOf,
  TENANT_MEMO,
  USER_MEMO,
  WAITING_MEMO,
  type AgentRunInput,
  type AgentRunResult,
  type EndedSummary,
  type RunState,
  type WaitingSummary,
} from '../workflows/contract/index.js';

/** What Temporal keeps of a run that a read without its worker can use. */
export interface RunRecord {
  readonly workflowId: string;
  /** The run of the chain described (the latest). */
  readonly runId: string;
  readonly status: WorkflowExecutionStatusName;
  readonly startTime: Date;
  readonly closeTime?: Date;
  readonly memo: Readonly<Record<string, unknown>>;
  /** The `CairnAgent` and `CairnPhase` search attributes, when the namespace has them and the run set them. */
  readonly agentAttribute?: string;
  readonly phaseAttribute?: string;
  /** The run's start input (its history's first event): single reads only. */
  readonly input?: AgentRunInput;
  /** A completed run's result: single reads only. */
  readonly result?: AgentRunResult;
  /** Why a failed run failed (its ApplicationFailure): single reads only. */
  readonly failure?: { readonly type: string; readonly message: string };
}

type Phase = RunState['phase'];

/** Every phase, so a search attribute or memo naming another is not taken for one. */
const PHASES: Readonly<Record<Phase, true>> = {
  model: true,
  tools: true,
  backing_off: true,
  awaiting_clarification: true,
  awaiting_review: true,
  awaiting_budget: true,
  finalizing: true,
  done: true,
};

function isPhase(value: unknown): value is Phase {
  return typeof value === 'string' && Object.hasOwn(PHASES, value);
}

/** What a list entry (or a description) says of a run: no history. */
export function recordOf(info: Omit<WorkflowExecutionInfo, 'raw'>): RunRecord {
  const agent = info.typedSearchAttributes.get(CairnAgent);
  const phase = info.typedSearchAttributes.get(CairnPhase);
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    status: info.status.name,
    startTime: info.startTime,
    ...(info.closeTime && { closeTime: info.closeTime }),
    memo: info.memo ?? {},
    ...(agent !== undefined && { agentAttribute: agent }),
    ...(phase !== undefined && { phaseAttribute: phase }),
  };
}

/** What the run waits for, as its memo says (null or absent: nobody). */
export function waitingOf(record: Pick<RunRecord, 'memo'>): WaitingSummary | undefined {
  const value = record.memo[WAITING_MEMO] as WaitingSummary | null | undefined;
  return value?.v === 1 ? value : undefined;
}

/** How the run ended, as its memo says (runs from before the memo: undefined). */
export function endedOf(record: Pick<RunRecord, 'memo'>): EndedSummary | undefined {
  return endedSummaryOf(record.memo);
}

export function isOpen(status: WorkflowExecutionStatusName): boolean {
  return status === 'RUNNING' || status === 'CONTINUED_AS_NEW';
}

/**
 * The run's state from its record, `stale: true`. An open run: its phase from `CairnPhase` (a
 * working run is `model`: the attribute does not tell model from tools), what it waits for from
 * its `cairnWaiting` memo. A closed one: `done`, with its result's answer, outcome and counts (or
 * its `cairnEnded` memo's, in a list), or its failure. What Temporal does not keep is empty:
 * counters are those the run started with (a continued run's carried state), steps those it
 * carried, no children, no pause.
 */
export function staleRunState(record: RunRecord): RunState {
  const { input, result } = record;
  const carried = input?.carried;
  const open = isOpen(record.status);
  const waiting = open ? waitingOf(record) : undefined;
  const ended = open ? undefined : endedOf(record);
  // The memo is written as a wait begins and cleared as it ends, in the same workflow task as the
  // phase; it also tells a parent waiting on its child's person, whose CairnPhase stays `running`.
  const awaited = waiting;
  const attribute = record.phaseAttribute;
  const phase: Phase = !open
    ? 'done'
    : awaited && isPhase(awaited.phase)
      ? awaited.phase
      : isPhase(attribute)
        ? attribute
        : 'model';
  const tenant = stringOf(record.memo[TENANT_MEMO]) ?? input?.tenant;
  const user = stringOf(record.memo[USER_MEMO]) ?? input?.user;
  // The agent's version, once the run published its summary (a run that has not waited yet has none).
  const agentVersion = runSummaryOf(record.memo)?.agentVersion;
  return {
    agent: input?.agent ?? record.agentAttribute ?? waiting?.agent ?? ended?.agent ?? '',
    ...(agentVersion !== undefined && { agentVersion }),
    phase,
    paused: false,
    turn: result?.turns ?? ended?.turn ?? carried?.state.turn ?? 0,
    toolCalls: result?.toolCalls ?? ended?.toolCalls ?? carried?.state.toolCallsUsed ?? 0,
    failedBatchStreak: 0,
    clarification: awaited?.clarification ?? null,
    reviews: awaited?.reviews ?? [],
    children: [],
    disabledTools: [],
    lastErrors: result?.errors ?? [],
    // A run that ended early (a cap, a cancel) says why here, as its own state would.
    finalizing: result?.reason ?? null,
    answer: result?.answer ?? ended?.answer ?? null,
    transcriptLength: carried?.transcript.length ?? 0,
    generation: result?.generation ?? carried?.generation ?? 0,
    continuingAsNew: false,
    steps: carried?.steps ?? [],
    ...(record.failure && { failure: record.failure }),
    ...(awaited?.budget && { budget: awaited.budget }),
    ...(result?.outcome && { outcome: result.outcome }),
    ...(tenant !== undefined && { tenant }),
    ...(user !== undefined && { user }),
    stale: true,
  };
}

/**
 * The transcript as far as the run's history tells it without its worker: what the run started
 * with (the request, or a continued run's carried transcript) and, once it completed, its answer.
 */
export function staleTranscript(record: RunRecord): TranscriptMessage[] {
  const input = record.input;
  const head: TranscriptMessage[] = input?.carried
    ? [...input.carried.transcript]
    : input
      ? [{ role: 'user', content: input.prompt }]
      : [];
  const answer = record.result?.answer;
  return answer === undefined ? head : [...head, { role: 'assistant', content: answer, toolCalls: [] }];
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
