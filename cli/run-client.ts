/**
 * Everything the short-lived commands (run, answer, review, watch, show) ask of Temporal, in one
 * module that commands load only once their command line checks out: `--help` and usage errors
 * never pay for loading the gRPC client. Queries carry a deadline, since a Query needs a worker
 * and without one would wait for ever. Node-only.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isGrpcDeadlineError, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { PendingReview } from '../planner/index.js';
import type { JsonValue } from '../shared/json.js';
import type { TranscriptMessage } from '../shared/transcript.js';
import type { agentRun } from '../workflows/index.js';
import {
  answerClarificationUpdate,
  reviewToolCallUpdate,
  stateQuery,
  transcriptQuery,
  type AgentRunInput,
  type AgentRunResult,
  type ReviewInput,
  type RunState,
} from '../workflows/messages.js';
import { CAIRN_SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';
import type { ClientConnection } from './connect.js';
import { CliError, describeError } from './errors.js';

export { withClient, type ClientConnection } from './connect.js';

const QUERY_TIMEOUT_MS = 10_000;
/** A just-started run may not answer Queries before its first workflow task; retry this long. */
const NOT_READY_GRACE_MS = 10_000;

/** Starts an agentRun. Cairn's search attributes are set only where the namespace has them. */
export async function startRun(
  connection: ClientConnection,
  options: { agent: string; prompt: string; model?: string; workflowId: string; taskQueue: string },
): Promise<WorkflowHandleWithFirstExecutionRunId<typeof agentRun>> {
  const input: AgentRunInput = {
    agent: options.agent,
    prompt: options.prompt,
    ...(options.model !== undefined && { model: options.model }),
    searchAttributes: await hasCairnSearchAttributes(connection),
  };
  return connection.client.workflow.start<typeof agentRun>('agentRun', {
    workflowId: options.workflowId,
    taskQueue: options.taskQueue,
    args: [input],
    staticSummary: `${options.agent}: ${options.prompt}`.slice(0, 200),
  });
}

/** The run's answer; a failed run throws (WorkflowFailedError). */
export function runResult(connection: ClientConnection, workflowId: string): Promise<AgentRunResult> {
  return connection.client.workflow.getHandle<typeof agentRun>(workflowId).result();
}

/**
 * True when the namespace has CairnAgent and CairnPhase registered (`cairn dev`, docker-compose
 * and the test server do): upserting unregistered attributes would fail every workflow task.
 */
async function hasCairnSearchAttributes(connection: ClientConnection): Promise<boolean> {
  try {
    const { customAttributes } = await connection.client.connection.operatorService.listSearchAttributes({ namespace: connection.namespace });
    return CAIRN_SEARCH_ATTRIBUTES.every((key) => Object.hasOwn(customAttributes ?? {}, key.name));
  } catch {
    return false;
  }
}

async function query<T>(connection: ClientConnection, workflowId: string, ask: (handle: WorkflowHandle) => Promise<T>): Promise<T> {
  const handle = connection.client.workflow.getHandle(workflowId);
  try {
    return await connection.client.connection.withDeadline(Date.now() + QUERY_TIMEOUT_MS, () => ask(handle));
  } catch (error) {
    if (isGrpcDeadlineError(error))
      throw new CliError(`No worker answered run "${workflowId}" within ${QUERY_TIMEOUT_MS / 1000} s: is a worker (cairn dev / cairn worker) polling its task queue?`);
    throw error;
  }
}

/** The run's state (`stateQuery`). */
export function readState(connection: ClientConnection, workflowId: string): Promise<RunState> {
  return query(connection, workflowId, (handle) => handle.query(stateQuery));
}

/** The whole transcript, as long as the state says it is. */
export async function readTranscript(connection: ClientConnection, workflowId: string): Promise<{ state: RunState; transcript: TranscriptMessage[] }> {
  const state = await readState(connection, workflowId);
  const transcript = await query(connection, workflowId, (handle) => handle.query(transcriptQuery, { length: state.transcriptLength }));
  return { state, transcript };
}

/**
 * The state of a run that may have just started or may have ended: a Query that fails on a
 * running run is retried briefly (a run may not answer before its first workflow task); on a
 * closed run the run's own outcome (failed, terminated…) becomes the CliError.
 */
export async function readStateWhenReady(connection: ClientConnection, workflowId: string): Promise<RunState> {
  const giveUpAt = Date.now() + NOT_READY_GRACE_MS;
  for (;;) {
    try {
      return await readState(connection, workflowId);
    } catch (error) {
      if (error instanceof CliError || (error as Error).name === 'WorkflowNotFoundError') throw error;
      const closed = await closedRunOutcome(connection, workflowId);
      if (closed) throw new CliError(closed);
      if (Date.now() > giveUpAt) throw error;
      await sleep(200);
    }
  }
}

/** Why a run stopped, or undefined while it is running. */
async function closedRunOutcome(connection: ClientConnection, workflowId: string): Promise<string | undefined> {
  const handle = connection.client.workflow.getHandle(workflowId);
  const { status } = await handle.describe();
  if (status.name === 'RUNNING') return undefined;
  const outcome = await handle.result().then(
    () => 'completed',
    (failure: unknown) => describeError(failure),
  );
  return `Run "${workflowId}" is ${status.name.toLowerCase()}: ${outcome}`;
}

/** Sends the answer to a pending question; the run's validator may refuse it (WorkflowUpdateFailedError). */
export async function answerQuestion(connection: ClientConnection, workflowId: string, id: string, answer: JsonValue): Promise<void> {
  await connection.client.workflow.getHandle(workflowId).executeUpdate(answerClarificationUpdate, { args: [{ id, answer }] });
}

/** Sends a review decision; the run's validator may refuse it (WorkflowUpdateFailedError). */
export async function decideReview(connection: ClientConnection, workflowId: string, input: ReviewInput): Promise<void> {
  await connection.client.workflow.getHandle(workflowId).executeUpdate(reviewToolCallUpdate, { args: [input] });
}

/** The pending review of `toolCallId`, or a CliError naming the ones that are pending. */
export function pendingReview(state: RunState, workflowId: string, toolCallId: string): PendingReview {
  const review = state.reviews.find((r) => r.toolCallId === toolCallId);
  if (review) return review;
  const pending = state.reviews.map((r) => `${r.toolCallId} (${r.name})`).join(', ');
  throw new CliError(`Run "${workflowId}" has no review pending for tool call "${toolCallId}"${pending ? `; pending: ${pending}` : ' (none is pending)'}.`);
}
