/**
 * A visibility listing that one run cannot break: the SDK's `workflow.list()` decodes every run's
 * memo and throws for the whole page on one it cannot decode (a memo encrypted by a codec this
 * client does not have, from another fleet or another test). Here such a run comes with an empty
 * memo instead, and lists that read memos (A2A ListTasks, MCP tasks/list, the inbox, the runs
 * page) go on. Node-only (client side).
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers.js';

export async function* listRuns(
  client: Client,
  options: { readonly query: string; readonly pageSize?: number },
): AsyncGenerator<WorkflowExecutionInfo> {
  let nextPageToken: Uint8Array = new Uint8Array();
  for (;;) {
    const page = await listRunsPage(client, { ...options, nextPageToken });
    yield* page.runs;
    nextPageToken = page.nextPageToken;
    if (!nextPageToken.length) return;
  }
}

/** One page of a visibility listing; `nextPageToken` is empty after the last. */
export async function listRunsPage(
  client: Client,
  options: { readonly query: string; readonly pageSize?: number; readonly nextPageToken?: Uint8Array },
): Promise<{ readonly runs: WorkflowExecutionInfo[]; readonly nextPageToken: Uint8Array }> {
  const { namespace, loadedDataConverter } = client.options;
  const response = await client.workflowService.listWorkflowExecutions({
    namespace,
    query: options.query,
    nextPageToken: options.nextPageToken ?? new Uint8Array(),
    ...(options.pageSize !== undefined && { pageSize: options.pageSize }),
  });
  const runs = await Promise.all(
    response.executions.map((raw) =>
      executionInfoFromRaw(raw, loadedDataConverter, raw, namespace).catch(() => {
        // Set on the decoded message itself: a copy ({ ...raw }) would lose the fields at their
        // default, which protobufjs keeps on the prototype (a running run's history length of 0).
        raw.memo = null;
        return executionInfoFromRaw(raw, loadedDataConverter, raw, namespace);
      }),
    ),
  );
  return { runs, nextPageToken: response.nextPageToken ?? new Uint8Array() };
}
