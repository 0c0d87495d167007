/**
 * What the short-lived commands (run, answer, review, watch, show) ask of Temporal: the
 * `cairn-agents/client` handle of a run, with the CLI's deadlines and messages. Loaded only once a
 * command line checks out: `--help` and usage errors never pay for the gRPC client. Queries carry
 * a deadline, since a Query needs a worker and without one would wait for ever. Node-only.
 */
import { isGrpcDeadlineError } from '@temporalio/client';
import { CairnClient, type StartRunOptions } from '../client/cairn-client.js';
import type { AgentRunHandle } from '../client/agent-run-handle.js';
import { pollRun, type PollOptions } from '../client/poll-run.js';
import type { TranscriptMessage } from '../shared/transcript.js';
import type { RunState } from '../workflows/messages.js';
import type { ClientConnection } from './connect.js';
import { CliError, describeError, failureReason } from './errors.js';

export { withClient, type ClientConnection } from './connect.js';

const QUERY_TIMEOUT_MS = 10_000;

/** The Cairn client on a CLI connection. */
export function cairnClient(connection: ClientConnection, taskQueue?: string): CairnClient {
  return new CairnClient({ client: connection.client, ...(taskQueue !== undefined && { taskQueue }) });
}

/** Runs `ask` with a deadline; no worker answering becomes a CliError that says so. */
export async function withDeadline<T>(connection: ClientConnection, workflowId: string, ask: () => Promise<T>, timeoutMs = QUERY_TIMEOUT_MS): Promise<T> {
  try {
    return await connection.client.connection.withDeadline(Date.now() + timeoutMs, ask);
  } catch (error) {
    if (isGrpcDeadlineError(error))
      throw new CliError(`No worker answered run "${workflowId}" within ${timeoutMs / 1000} s: is a worker (cairn dev / cairn worker) polling its task queue?`);
    throw error;
  }
}

/** Starts a run. */
export function startRun(connection: ClientConnection, options: StartRunOptions & { workflowId: string; taskQueue: string }): Promise<AgentRunHandle> {
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
  return withDeadline(connection, run.workflowId, () => run.state());
}

/** The whole transcript, as long as the state says it is. */
export async function readTranscript(connection: ClientConnection, run: AgentRunHandle): Promise<{ state: RunState; transcript: TranscriptMessage[] }> {
  const state = await readState(connection, run);
  const transcript = await withDeadline(connection, run.workflowId, () => run.transcript({ length: state.transcriptLength }));
  return { state, transcript };
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
