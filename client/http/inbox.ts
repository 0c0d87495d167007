/**
 * The inbox: every run waiting on a person, found through Temporal visibility by the `CairnPhase`
 * search attribute (never a scan of all runs), newest first, each with what it waits for (read
 * from the run's `state` Query): the question, or each held tool call with its arguments, args
 * hash, allowed decisions, reviewer description and the tool's JSON Schema for editing — and
 * what a person needs to judge it: the request that started the run, the latest exchange (both
 * cut short), and when the run began to wait (its latest `question` or `review` event).
 * Node-only (client side).
 */
import type { Agent } from '../../shared/agent/define-agent.js';
import type { AgentRunHandle } from '../agent-run-handle.js';
import type { CairnClient } from '../cairn-client.js';
import { decodeJsonItem } from '../../shared/stream-wire.js';
import { streamReadQuery } from '../../workflows/run-stream.js';
import { TENANT_ID } from '../../workflows/search-attributes.js';
import { answerSchema } from './agui-events.js';
import { pendingInterrupts, type PendingInterrupt } from './interrupts.js';

export interface InboxItem {
  readonly runId: string;
  readonly agent: string;
  readonly phase: string;
  readonly startedAt: string;
  /** When the run began to wait for a person (its latest question or review); the start when unknown. */
  readonly waitingSince: string;
  /** The request that started the run (cut to REQUEST_CHARS). */
  readonly request?: string;
  /** The latest words of the conversation, oldest first (at most two, each cut to EXCHANGE_CHARS). */
  readonly exchange: readonly { readonly role: 'user' | 'assistant'; readonly text: string }[];
  readonly waiting: readonly (PendingInterrupt & { readonly schema?: Record<string, unknown> })[];
  /** The run in the Temporal UI, when the handler knows where it is. */
  readonly temporalUrl?: string;
}

const MAX_ITEMS = 100;
const REQUEST_CHARS = 1_000;
const EXCHANGE_CHARS = 600;

/** The visibility query for runs waiting on a person on `taskQueue`. */
export function inboxQuery(taskQueue: string, tenant?: string): string {
  const query = `WorkflowType = 'agentRun' AND ExecutionStatus = 'Running' AND CairnPhase IN ('awaiting_clarification', 'awaiting_review') AND TaskQueue = '${taskQueue.replaceAll("'", "\\'")}'`;
  // TENANT_ID admits no quote: the tenant is safe in the query as it is.
  return tenant === undefined ? query : `${query} AND CairnTenant = '${tenant}'`;
}

/** The runs waiting on a person: `tenant`'s only, when given. */
export async function readInbox(client: CairnClient, agents: readonly Agent[], temporalUiUrl: string | undefined, tenant?: string): Promise<InboxItem[]> {
  if (tenant !== undefined && !TENANT_ID.test(tenant)) throw new TypeError(`Invalid tenant "${tenant}".`);
  const found: { workflowId: string; startTime: Date }[] = [];
  for await (const info of client.temporal.workflow.list({ query: inboxQuery(client.taskQueue, tenant), pageSize: MAX_ITEMS })) {
    found.push({ workflowId: info.workflowId, startTime: info.startTime });
    if (found.length >= MAX_ITEMS) break;
  }
  found.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
  const items = await Promise.all(
    found.map(async ({ workflowId, startTime }): Promise<InboxItem | undefined> => {
      const state = await client.run(workflowId).state().catch(() => undefined);
      // Visibility lags the run a little: one decided a moment ago is left out.
      if (!state) return undefined;
      // A review carries its tool's argument schema (to check an edit); a question the schema its answer is held to.
      const waiting = pendingInterrupts(state).map((p) =>
        p.kind === 'review' ? { ...p, ...schemaOf(agents, state.agent, p.review.name) } : { ...p, schema: answerSchema(p, p.tool ? schemaOf(agents, state.agent, p.tool).schema : undefined) },
      );
      if (waiting.length === 0) return undefined;
      const namespace = client.temporal.options.namespace;
      const told = await conversationOf(client.run(workflowId)).catch(() => undefined);
      return {
        runId: workflowId,
        agent: state.agent,
        phase: state.phase,
        startedAt: startTime.toISOString(),
        waitingSince: new Date(told?.waitingSince ?? startTime.getTime()).toISOString(),
        ...(told?.request && { request: told.request }),
        exchange: told?.exchange ?? [],
        waiting,
        ...(temporalUiUrl && { temporalUrl: `${temporalUiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}` }),
      };
    }),
  );
  return items.filter((i) => i !== undefined);
}

/** At most this many pages of a run's events are read for its card (each page is bounded in size). */
const MAX_PAGES = 4;

/**
 * What the card tells of the conversation, from one read of the run's events (one Query per page):
 * the request (`run_started`), the latest words of the person (a message or answer) and of the
 * agent (a model turn's text), and when it began to wait (its latest `question` or `review`).
 */
async function conversationOf(run: AgentRunHandle): Promise<{ request?: string; exchange: InboxItem['exchange']; waitingSince?: number }> {
  let request: string | undefined;
  let waitingSince: number | undefined;
  const said: { offset: number; role: 'user' | 'assistant'; text: string }[] = [];
  for (let from = 0, pages = 0; pages < MAX_PAGES; pages++) {
    const page = await run.workflow.query(streamReadQuery, { topics: ['run_started', 'question', 'review', 'human', 'model_turn'], from_offset: from });
    for (const item of page.items) {
      const event = decodeJsonItem(item.data) as { type?: string; at?: number; prompt?: string; text?: string; kind?: string; detail?: unknown } | undefined;
      if (event?.type === 'run_started' && typeof event.prompt === 'string') request = cut(event.prompt, REQUEST_CHARS);
      if (event?.type === 'question' || event?.type === 'review') waitingSince = event.at;
      if (event?.type === 'model_turn' && typeof event.text === 'string' && event.text.trim() !== '') said.push({ offset: item.offset, role: 'assistant', text: cut(event.text, EXCHANGE_CHARS) });
      if (event?.type === 'human' && (event.kind === 'message' || event.kind === 'answer'))
        said.push({ offset: item.offset, role: 'user', text: cut(typeof event.detail === 'string' ? event.detail : JSON.stringify(event.detail), EXCHANGE_CHARS) });
    }
    if (!page.more_ready) break;
    from = page.next_offset;
  }
  return { ...(request !== undefined && { request }), exchange: said.slice(-2).map(({ role, text }) => ({ role, text })), ...(waitingSince !== undefined && { waitingSince }) };
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The JSON Schema of `tool`'s arguments, when the handler knows the agent. */
export function schemaOf(agents: readonly Agent[], agent: string, tool: string): { schema?: Record<string, unknown> } {
  const schema = agents.find((a) => a.name === agent)?.tools.find((t) => t.name === tool)?.spec.args_schema;
  return schema ? { schema: schema as Record<string, unknown> } : {};
}
