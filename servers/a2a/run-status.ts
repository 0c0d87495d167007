/**
 * A run's status as the protocols name it, read from Temporal every time, so any server instance,
 * before or after a restart, says the same; the rule for a run Temporal holds open is the
 * contract's `statusOfState`. A single run is read by describe, then the `state` Query within the
 * client's read deadline — without the worker's answer, from what Temporal keeps (`stale`). A list
 * entry is read from visibility alone (`listedStatus`): never one Query per listed run.
 * Node-only (client side).
 */
import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import { endedOf, recordOf, staleRunState } from '../../client/stale-state.js';
import type { RunState } from '../../workflows/contract/index.js';
import { TENANT_MEMO } from '../../workflows/contract/search-attributes.js';
import { RunInputError } from './run-input.js';
import type { PendingInput } from '../../workflows/contract/pending-input.js';
import { statusOfState, type RunStatusName } from '../../workflows/contract/run-status.js';

export { isCancelReason, isTerminal, type RunStatusName } from '../../workflows/contract/run-status.js';

export interface RunStatus {
  readonly status: RunStatusName;
  readonly workflowId: string;
  /** The run's state when it could be read (a run that failed early may have none); `state.stale` when read without its worker. */
  readonly state?: RunState;
  readonly pending?: PendingInput;
  /** The final answer, once the run finished (also for a canceled run: what it said last). */
  readonly answer?: string;
  /** Why the run failed or was canceled. */
  readonly reason?: string;
  /** The run's memo (where the A2A context id lives). */
  readonly memo?: Record<string, unknown>;
  readonly startTime?: Date;
  readonly closeTime?: Date;
}

/**
 * The run's status; throws RunInputError('unknown_run') when there is no such run — and, when
 * `tenant` is given, when the run is not the tenant's: word for word the same, asked nothing more.
 */
export async function runStatus(run: AgentRunHandle, tenant?: string): Promise<RunStatus> {
  const unknown = () => new RunInputError('unknown_run', `No task or run with id "${run.workflowId}".`);
  let description;
  try {
    description = await run.describe();
  } catch (error) {
    if ((error as Error).name === 'WorkflowNotFoundError') throw unknown();
    throw error;
  }
  if (tenant !== undefined && description.memo?.[TENANT_MEMO] !== tenant) throw unknown();
  const base = {
    workflowId: run.workflowId,
    ...(description.memo && { memo: description.memo }),
    startTime: description.startTime,
    ...(description.closeTime && { closeTime: description.closeTime }),
  };
  const temporal = description.status.name;
  const read = () => run.state({ deadlineMs: run.readDeadlineMs });
  if (temporal === 'FAILED' || temporal === 'TERMINATED' || temporal === 'TIMED_OUT') {
    const state = await read().catch(() => undefined);
    return {
      ...base,
      status: 'failed',
      ...(state && { state }),
      reason: state?.failure?.message ?? `The run ${temporal.toLowerCase().replace('_', ' ')}.`,
    };
  }
  if (temporal === 'CANCELLED') return { ...base, status: 'canceled', reason: 'The run was cancelled.' };
  const state = await read();
  return { ...base, ...statusOfState(state), state };
}

/**
 * A listed run's status from its visibility entry alone (status, search attributes, memo): what it
 * waits for from its `cairnWaiting` memo, how it ended from its `cairnEnded` memo (a run from
 * before that memo: completed, without its answer). Its state is marked `stale`.
 */
export function listedStatus(info: Omit<WorkflowExecutionInfo, 'raw'>): RunStatus {
  const record = recordOf(info);
  const state = staleRunState(record);
  const base = {
    workflowId: info.workflowId,
    ...(info.memo && { memo: info.memo }),
    startTime: info.startTime,
    ...(info.closeTime && { closeTime: info.closeTime }),
    state,
  };
  const ended = endedOf(record);
  switch (info.status.name) {
    case 'RUNNING':
    case 'CONTINUED_AS_NEW':
      return { ...base, ...statusOfState(state) };
    case 'CANCELLED':
      return { ...base, status: 'canceled', reason: 'The run was cancelled.' };
    case 'COMPLETED':
      return {
        ...base,
        status: ended?.status ?? 'completed',
        ...(ended?.answer !== undefined && { answer: ended.answer }),
        ...(ended?.reason !== undefined && { reason: ended.reason }),
      };
    default:
      return {
        ...base,
        status: 'failed',
        reason: ended?.reason ?? `The run ${info.status.name.toLowerCase().replace('_', ' ')}.`,
      };
  }
}
