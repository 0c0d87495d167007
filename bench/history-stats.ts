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
  let runId: string | null | undefined = firstRunId;
  while (runId) {
    const handle: WorkflowHandle = client.workflow.getHandle(workflowId, runId);
    const [history, description] = await Promise.all([handle.fetchHistory(), handle.describe()]);
    const events = history.events ?? [];
    if (description.historySize === undefined) throw new Error(`The server did not report the history size of ${workflowId}/${runId}.`);
    stats = {
      events: stats.events + events.length,
      bytes: stats.bytes + description.historySize,
      runs: stats.runs + 1,
      perRun: [...stats.perRun, { events: events.length, bytes: description.historySize }],
    };
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  }
  return stats;
}
