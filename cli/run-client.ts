/**
 * What the short-lived commands (run, answer, review, watch, show) ask of Temporal: the
 * `cairn-agents/client` handle of a run, with the CLI's deadlines and messages. Loaded only once a
 * command line checks out: `--help` and usage errors never pay for the gRPC client. Queries carry
 * a deadline, since a Query needs a worker and without one would wait for ever. Node-only.
 */
import { isGrpcDeadlineError } from '@temporalio/client';
import { CairnClient, type StartRunOptions } from '../client/cairn-client.js';
import type { AgentRunHandle } from '../client/agent-run-handle.js';
import { pollRun } from '../client/poll-run.js';
import { staleTranscript } from '../client/stale-state.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { RunState } from '../workflows/contract/index.js';
import type { ClientConnection } from './connect.js';
import { CliError, describeError, failureReason } from './errors.js';

export { withClient, type ClientConnection } from './connect.js';

const QUERY_TIMEOUT_MS = 10_000;

/** The Cairn client on a CLI connection. */
export function cairnClient(connection: ClientConnection, taskQueue?: string): CairnClient {
  return new CairnClient({ client: connection.client, ...(taskQueue !== undefined && { taskQueue }) });
}

/**
 * Runs `ask` with a deadline; no worker answering becomes a CliError that says so. A read
 * (`patient`: a Query, safe to ask again) whose run's queue has a worker polling it is asked once
 * more, three times as long: that worker is busy (a loaded machine), not gone.
 */
export async function withDeadline<T>(
  connection: ClientConnection,
  workflowId: string,
  ask: () => Promise<T>,
  timeoutMs = QUERY_TIMEOUT_MS,
  patient = false,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  try {
    return await connection.client.connection.withDeadline(deadline, ask);
  } catch (error) {
    // A loaded server can answer a Query nobody polls for with its own error just before the
    // deadline (a ServiceError that is not DEADLINE_EXCEEDED): at the deadline it means the same.
    const atDeadline = (error as Error).name === 'ServiceError' && Date.now() >= deadline - 2_000;
    if (!isGrpcDeadlineError(error) && !atDeadline) throw error;
    const why = await noAnswerReason(connection, workflowId, timeoutMs);
    if (patient && why.polled) return withDeadline(connection, workflowId, ask, timeoutMs * 3, false);
    throw new CliError(why.message);
  }
}

/** temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW (@temporalio/proto is not Cairn's to import). */
const TASK_QUEUE_TYPE_WORKFLOW = 1;

/**
 * Why nobody answered within `timeoutMs`: the run's task queue and whether any worker polls it
 * (DescribeTaskQueue lists the pollers the server saw in the last few minutes).
 */
async function noAnswerReason(
  connection: ClientConnection,
  workflowId: string,
  timeoutMs: number,
): Promise<{ readonly message: string; readonly polled: boolean }> {
  const within = `within ${timeoutMs / 1000} s`;
  try {
    const { taskQueue } = await connection.client.workflow.getHandle(workflowId).describe();
    const { pollers } = await connection.client.workflowService.describeTaskQueue({
      namespace: connection.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
    });
    if (!pollers?.length)
      return {
        polled: false,
        message: `No worker is polling task queue "${taskQueue}", so nothing answered run "${workflowId}" ${within}. Start one for it (cairn dev, or cairn worker --task-queue ${taskQueue}) and try again.`,
      };
    return {
      polled: true,
      message: `No worker answered run "${workflowId}" ${within}, though ${pollers.length} poll(s) its task queue "${taskQueue}" or did lately: a worker stopped, is overloaded, or cannot run this run (see its log).`,
    };
  } catch {
    return {
      polled: false,
      message: `No worker answered run "${workflowId}" ${within}: is a worker (cairn dev / cairn worker) polling its task queue?`,
    };
  }
}

/** Starts a run. */
export function startRun(
  connection: ClientConnection,
  options: StartRunOptions & { workflowId: string; taskQueue: string },
): Promise<AgentRunHandle> {
  return cairnClient(connection).start(options);
}

/** How long `cairn run` waits for a worker to take a new run's first workflow task. */
const FIRST_TASK_GRACE_MS = 5_000;

/**
 * The state of a run just started, once a worker took its first workflow task (which checks the
 * agent and the model); undefined when no worker did within a few seconds. A run refused there
 * (unknown agent, no model) becomes a CliError with its reason: `The run failed: Unknown agent…`.
 */
export async function readFirstState(connection: ClientConnection, run: AgentRunHandle): Promise<RunState | undefined> {
  try {
    return await connection.client.connection.withDeadline(Date.now() + FIRST_TASK_GRACE_MS + 1_000, async () => {
      for await (const state of pollRun(run, { startGraceMs: FIRST_TASK_GRACE_MS })) return state;
      return undefined;
    });
  } catch (error) {
    if ((error as Error).name === 'WorkflowFailedError') throw new CliError(describeError(error));
    const outcome = await closedOutcome(run).catch(() => undefined);
    if (outcome) throw new CliError(`Run "${run.workflowId}" ${outcome.status}: ${outcome.failure}`);
    return undefined;
  }
}

/** The run's state (`stateQuery`). */
export function readState(connection: ClientConnection, run: AgentRunHandle): Promise<RunState> {
  return withDeadline(connection, run.workflowId, () => run.state(), QUERY_TIMEOUT_MS, true);
}

/** The whole transcript, as long as the state says it is. */
export async function readTranscript(
  connection: ClientConnection,
  run: AgentRunHandle,
): Promise<{ state: RunState; transcript: TranscriptMessage[] }> {
  const state = await readState(connection, run);
  return { state, transcript: await transcriptAt(connection, run, state) };
}

/** The transcript as long as `state` says it is. */
const transcriptAt = (connection: ClientConnection, run: AgentRunHandle, state: RunState) =>
  withDeadline(
    connection,
    run.workflowId,
    () => run.transcript({ length: state.transcriptLength }),
    QUERY_TIMEOUT_MS,
    true,
  );

/**
 * What `cairn show` prints: the state within the client's read deadline (2 s) and the transcript;
 * when no worker answered, what Temporal keeps (`state.stale`), with the transcript as far as the
 * run's history tells it (what it started with, and its answer once completed).
 */
export async function readShown(
  connection: ClientConnection,
  run: AgentRunHandle,
): Promise<{ state: RunState; transcript: TranscriptMessage[] }> {
  const state = await run.state({ deadlineMs: run.readDeadlineMs });
  if (state.stale) return { state, transcript: staleTranscript(await run.record()) };
  return { state, transcript: await transcriptAt(connection, run, state) };
}

/** How a closed run ended, as a CliError (`Run "x" failed: …`), or `error` itself while the run is open. */
export async function stopped(run: AgentRunHandle, error: unknown): Promise<unknown> {
  if (error instanceof CliError || (error as Error).name === 'WorkflowNotFoundError') return error;
  const outcome = await closedOutcome(run).catch(() => undefined);
  return outcome ? new CliError(`Run "${run.workflowId}" ${outcome.status}: ${outcome.failure}`) : error;
}

/** How a closed run ended that did not complete (`failed`, `terminated`, `timed out`…); undefined while running or completed. */
export async function closedOutcome(run: AgentRunHandle): Promise<{ status: string; failure: string } | undefined> {
  const { status } = await run.workflow.describe();
  if (status.name === 'RUNNING' || status.name === 'COMPLETED' || status.name === 'CONTINUED_AS_NEW') return undefined;
  const failure = await run.result().then(
    () => 'completed',
    (reason: unknown) => failureReason(reason),
  );
  return { status: status.name.toLowerCase().replace('_', ' '), failure };
}

/**
 * A CliError naming `run` as closed (`Run "x" is terminated: reason; it takes no answers`), or
 * undefined while it runs. An unknown run throws WorkflowNotFoundError ("No run with workflow id").
 */
export async function closedRunError(run: AgentRunHandle, takes: string): Promise<CliError | undefined> {
  const { status } = await run.workflow.describe();
  if (status.name === 'RUNNING') return undefined;
  const how = status.name.toLowerCase().replace('_', ' ');
  const why =
    status.name === 'COMPLETED'
      ? ''
      : await run.result().then(
          () => '',
          (reason: unknown) => `: ${failureReason(reason)}`,
        );
  return new CliError(`Run "${run.workflowId}" is ${how}${why}; a closed run takes no ${takes}.`);
}

/** Runs `send` on an open run; a closed one (before, or by the time it failed) is named as closed. */
export async function whileOpen<T>(run: AgentRunHandle, takes: string, send: () => Promise<T>): Promise<T> {
  const closed = await closedRunError(run, takes);
  if (closed) throw closed;
  try {
    return await send();
  } catch (error) {
    throw (await closedRunError(run, takes).catch(() => undefined)) ?? error;
  }
}
