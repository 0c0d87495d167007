import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, METADATA_ENCODING_KEY, type Payload } from '@temporalio/common';
import protos from '@temporalio/proto';
import { msToTs } from '@temporalio/common/lib/time.js';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { describe, expect, it } from 'vitest';
import { listRuns } from './list-runs.js';

const { WorkflowExecutionInfo } = protos.temporal.api.workflow.v1;

/**
 * A run as the server sends it, decoded as the SDK decodes it: a field at its default (a running
 * run's history length of 0) is not on the object itself but on its prototype.
 */
const execution = (workflowId: string, memo: Record<string, Payload>) =>
  WorkflowExecutionInfo.decode(
    WorkflowExecutionInfo.encode({
      execution: { workflowId, runId: `${workflowId}-run` },
      type: { name: 'agentRun' },
      startTime: msToTs(1_800_000_000_000),
      status: 1,
      taskQueue: 'cairn',
      memo: { fields: memo },
    }).finish(),
  );

describe('listRuns', () => {
  it('lists a run whose memo this client cannot decode with an empty memo, and goes on through the pages', async () => {
    const readable = { cairnEnded: defaultPayloadConverter.toPayload({ status: 'completed' }) };
    const encrypted = {
      cairnEnded: {
        metadata: { [METADATA_ENCODING_KEY]: new TextEncoder().encode('binary/encrypted') },
        data: new Uint8Array([1, 2, 3]),
      },
    };
    const pages = [
      { executions: [execution('a', readable), execution('b', encrypted)], nextPageToken: new Uint8Array([1]) },
      { executions: [execution('c', readable)], nextPageToken: new Uint8Array() },
    ];
    const asked: unknown[] = [];
    const client = {
      options: { namespace: 'default', loadedDataConverter: loadDataConverter() },
      workflowService: {
        listWorkflowExecutions: async (request: unknown) => (asked.push(request), pages.shift()),
      },
    } as unknown as Client;
    const listed = [];
    for await (const info of listRuns(client, { query: "WorkflowType = 'agentRun'" })) listed.push(info);
    expect(listed.map((info) => [info.workflowId, info.memo])).toEqual([
      ['a', { cairnEnded: { status: 'completed' } }],
      ['b', undefined],
      ['c', { cairnEnded: { status: 'completed' } }],
    ]);
    expect(asked).toHaveLength(2);
  });
});
