/**
 * Reads what Temporal keeps of a run, with no worker: its description (status, memo, search
 * attributes), its start input (the first event of its latest run's history) and, once closed, its
 * result or failure (the close event) — three calls to the server, payloads decoded by the client's
 * data converter (codecs included). What a read falls back to when the run's worker does not answer
 * (stale-state.ts). Node-only (client side).
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { AgentRunInput, AgentRunResult } from '../workflows/contract/index.js';
import { isOpen, recordOf, type RunRecord } from './stale-state.js';

/** The run's record (from `described`, its description when already asked); throws Temporal's WorkflowNotFoundError for no run. */
export async function readRunRecord(
  client: Client,
  workflowId: string,
  described?: Promise<WorkflowExecutionDescription>,
): Promise<RunRecord> {
  const description = await (described ?? client.workflow.getHandle(workflowId).describe());
  const record = recordOf(description);
  const closed = !isOpen(record.status);
  const [input, end] = await Promise.all([
    startInput(client, workflowId, record.runId).catch(() => undefined),
    closed ? endOf(client, workflowId, record.runId) : undefined,
  ]);
  return { ...record, ...(input && { input }), ...end };
}

/** The latest run's start input (the first event of its history). */
async function startInput(client: Client, workflowId: string, runId: string): Promise<AgentRunInput | undefined> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, runId },
    maximumPageSize: 1,
  });
  const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return payload ? ((await decode(client, payload)) as AgentRunInput) : undefined;
}

/** A closed run's result, or its own failure (an ApplicationFailure: its type and message). */
async function endOf(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<Pick<RunRecord, 'result' | 'failure'>> {
  try {
    const result = (await client.workflow.getHandle(workflowId, runId, { followRuns: false }).result()) as
      | AgentRunResult
      | undefined;
    return result && typeof result === 'object' ? { result } : {};
  } catch (error) {
    const cause = (error as { cause?: { name?: string; type?: unknown; message?: string } }).cause;
    if (cause?.name === 'ApplicationFailure' && typeof cause.type === 'string')
      return { failure: { type: cause.type, message: cause.message ?? '' } };
    return {};
  }
}

/** A payload as the client's data converter reads it, codecs (e.g. encryption) included. */
async function decode(client: Client, payload: Payload): Promise<unknown> {
  const { payloadConverter, payloadCodecs } = client.options.loadedDataConverter;
  let payloads = [payload];
  for (const codec of [...payloadCodecs].reverse()) payloads = await codec.decode(payloads);
  return payloadConverter.fromPayload(payloads[0]!);
}
