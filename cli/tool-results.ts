/**
 * The ToolResults a run recorded, read from its history: every completed tool activity returned
 * one, shadow-mode records included (the transcript holds only what the model sees). Follows the
 * continue-as-new chain back from the latest run, up to `maxRuns` runs. Node-only.
 */
import type { Payload } from '@temporalio/common';
import type { ToolResult } from '../shared/tools/tool-result.js';
import type { ClientConnection } from './connect.js';
import { CliError } from './errors.js';
import { TOOL_ACTIVITY_TYPES } from '../shared/tools/once-fence.js';

export interface RecordedToolResults {
  readonly results: ToolResult[];
  /** Runs of the chain read, latest first. */
  readonly runs: number;
  /** True when the chain goes back further than `maxRuns`. */
  readonly truncated: boolean;
}

export async function readToolResults(
  connection: ClientConnection,
  workflowId: string,
  maxRuns = 50,
): Promise<RecordedToolResults> {
  const { client } = connection;
  const results: ToolResult[] = [];
  let runId: string | undefined;
  let runs = 0;
  for (;;) {
    let history;
    try {
      history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    } catch (error) {
      if ((error as Error).name === 'WorkflowNotFoundError')
        throw new CliError(`No run with workflow id "${workflowId}".`);
      throw error;
    }
    runs++;
    const scheduled = new Map<string, string>();
    const found: ToolResult[] = [];
    for (const event of history.events ?? []) {
      const attrs = event.activityTaskScheduledEventAttributes;
      if (attrs) scheduled.set(String(event.eventId), attrs.activityType?.name ?? '');
      const completed = event.activityTaskCompletedEventAttributes;
      if (completed && TOOL_ACTIVITY_TYPES.has(scheduled.get(String(completed.scheduledEventId)) ?? '')) {
        const payload = completed.result?.payloads?.[0];
        if (payload) found.push((await decode(connection, payload)) as ToolResult);
      }
    }
    results.unshift(...found);
    const previous = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) return { results, runs, truncated: false };
    if (runs >= maxRuns) return { results, runs, truncated: true };
    runId = previous;
  }
}

/** A payload as the client's data converter reads it, codecs (e.g. encryption) included. */
async function decode(connection: ClientConnection, payload: Payload): Promise<unknown> {
  const { payloadConverter, payloadCodecs } = connection.client.options.loadedDataConverter;
  let payloads = [payload];
  for (const codec of [...payloadCodecs].reverse()) payloads = await codec.decode(payloads);
  return payloadConverter.fromPayload(payloads[0]!);
}
