/**
 * How big a run's history is: its events (fetched, as `temporal workflow show` would) and its
 * bytes as the server counts them (`historySizeBytes`, the number its 10 MB warning and 50 MB
 * limit apply to). Summed over the run's continue-as-new chain, from its first run. Node-only.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';

export interface HistoryStats {
  readonly events: number;
  readonly bytes: number;
  /** Runs in the chain: 1 unless the workflow continued as new. */
  readonly runs: number;
  /** Each run of the chain, first to last. */
  readonly perRun: readonly { readonly events: number; readonly bytes: number }[];
}

export async function historyStats(client: Client, workflowId: string, firstRunId: string): Promise<HistoryStats> {
  let stats: HistoryStats = { events: 0, bytes: 0, runs: 0, perRun: [] };
  for await (const { events, description } of chain(client, workflowId, firstRunId)) {
    if (description.historySize === undefined)
      throw new Error(`The server did not report the history size of ${workflowId}/${description.runId}.`);
    stats = {
      events: stats.events + events.length,
      bytes: stats.bytes + description.historySize,
      runs: stats.runs + 1,
      perRun: [...stats.perRun, { events: events.length, bytes: description.historySize }],
    };
  }
  return stats;
}

/** Every event of the chain, first run to last. */
export async function chainEvents(client: Client, workflowId: string, firstRunId: string) {
  const all = [];
  for await (const { events } of chain(client, workflowId, firstRunId)) all.push(...events);
  return all;
}

/** The runs of a continue-as-new chain, first to last: each one's events and description. */
async function* chain(client: Client, workflowId: string, firstRunId: string) {
  let runId: string | null | undefined = firstRunId;
  while (runId) {
    const handle: WorkflowHandle = client.workflow.getHandle(workflowId, runId);
    const [history, description] = await Promise.all([handle.fetchHistory(), handle.describe()]);
    const events = history.events ?? [];
    yield { events, description };
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  }
}
