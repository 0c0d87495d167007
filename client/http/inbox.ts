/**
 * The inbox: every run waiting on a person, found through Temporal visibility by the `CairnPhase`
 * search attribute (never a scan of all runs), newest first, each with what it waits for (read
 * from the run's `state` Query): the question, or each held tool call with its arguments, args
 * hash, allowed decisions, reviewer description and the tool's JSON Schema for editing.
 * Node-only (client side).
 */
import type { Agent } from '../../shared/agent/define-agent.js';
import type { CairnClient } from '../cairn-client.js';
import { pendingInterrupts, type PendingInterrupt } from './interrupts.js';

export interface InboxItem {
  readonly runId: string;
  readonly agent: string;
  readonly phase: string;
  readonly startedAt: string;
  readonly waiting: readonly (PendingInterrupt & { readonly schema?: Record<string, unknown> })[];
  /** The run in the Temporal UI, when the handler knows where it is. */
  readonly temporalUrl?: string;
}

const MAX_ITEMS = 100;

/** The visibility query for runs waiting on a person on `taskQueue`. */
export function inboxQuery(taskQueue: string): string {
  return `WorkflowType = 'agentRun' AND ExecutionStatus = 'Running' AND CairnPhase IN ('awaiting_clarification', 'awaiting_review') AND TaskQueue = '${taskQueue.replaceAll("'", "\\'")}'`;
}

export async function readInbox(client: CairnClient, agents: readonly Agent[], temporalUiUrl: string | undefined): Promise<InboxItem[]> {
  const found: { workflowId: string; startTime: Date }[] = [];
  for await (const info of client.temporal.workflow.list({ query: inboxQuery(client.taskQueue), pageSize: MAX_ITEMS })) {
    found.push({ workflowId: info.workflowId, startTime: info.startTime });
    if (found.length >= MAX_ITEMS) break;
  }
  found.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
  const items = await Promise.all(
    found.map(async ({ workflowId, startTime }): Promise<InboxItem | undefined> => {
      const state = await client.run(workflowId).state().catch(() => undefined);
      // Visibility lags the run a little: one decided a moment ago is left out.
      if (!state) return undefined;
      const waiting = pendingInterrupts(state).map((p) => (p.kind === 'review' ? { ...p, ...schemaOf(agents, state.agent, p.review.name) } : p));
      if (waiting.length === 0) return undefined;
      const namespace = client.temporal.options.namespace;
      return {
        runId: workflowId,
        agent: state.agent,
        phase: state.phase,
        startedAt: startTime.toISOString(),
        waiting,
        ...(temporalUiUrl && { temporalUrl: `${temporalUiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}` }),
      };
    }),
  );
  return items.filter((i) => i !== undefined);
}

/** The JSON Schema of `tool`'s arguments, when the handler knows the agent. */
export function schemaOf(agents: readonly Agent[], agent: string, tool: string): { schema?: Record<string, unknown> } {
  const schema = agents.find((a) => a.name === agent)?.tools.find((t) => t.name === tool)?.spec.args_schema;
  return schema ? { schema: schema as Record<string, unknown> } : {};
}
