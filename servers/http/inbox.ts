/**
 * The inbox: every run waiting on a person, found through Temporal visibility by the `CairnPhase`
 * search attribute (never a scan of all runs), oldest-waiting first, paged, each with what it waits for (read
 * from the memo the run publishes; runs from before that, by its `state` Query): the question, or each held tool call with its arguments, args
 * hash, allowed decisions, reviewer description and the tool's JSON Schema for editing — and
 * what a person needs to judge it: the request that started the run, the latest exchange (both
 * cut short), and when the run began to wait (its latest `question` or `review` event).
 * An item built from the memo is marked `stale` (what the run published as it began to wait; never
 * asked of the run); the few runs that are asked (below) are asked within the client's read
 * deadline, so no worker never holds the inbox up. Node-only (client side).
 */
import type { Agent } from '../../shared/agent/define-agent.js';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import { searchAttributesHint, type CairnClient } from '../../client/cairn-client.js';
import { decodeJsonItem } from '../../shared/stream-wire.js';
import { TENANT_ID, WAITING_MEMO, type RunState, type WaitingSummary } from '../../workflows/contract/index.js';
import { HttpError } from './http-error.js';
import type { InboxListings } from './inbox-listings.js';
import { answerSchema } from './agui-events.js';
import { budgetDecisionSchema } from '../../workflows/contract/pending-input.js';
import { pendingInterrupts, type PendingInterrupt } from './interrupts.js';
import { runScope } from './run-scope.js';
import { listRuns } from '../../client/list-runs.js';
import { runSummaryOf } from '../../workflows/contract/run-summary-memo.js';

export interface InboxItem {
  readonly runId: string;
  readonly agent: string;
  /** The version of the agent the run runs (shared/agent/agent-version.ts), from its summary. */
  readonly agentVersion?: string;
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
  /** Read from what the run published in its memo (or Temporal kept), not asked of the run: it may be behind. */
  readonly stale?: true;
}

const REQUEST_CHARS = 1_000;
const EXCHANGE_CHARS = 600;

/** The visibility query for runs waiting on a person on `taskQueue`. */
export function inboxQuery(taskQueue: string, tenant?: string): string {
  const query = `WorkflowType = 'agentRun' AND ExecutionStatus = 'Running' AND CairnPhase IN ('awaiting_clarification', 'awaiting_review', 'awaiting_budget') AND TaskQueue = '${taskQueue.replaceAll("'", "\\'")}'`;
  // TENANT_ID admits no quote: the tenant is safe in the query as it is.
  return tenant === undefined ? query : `${query} AND CairnTenant = '${tenant}'`;
}

/** One page of the inbox: oldest-waiting first, `total` runs waiting in all, `nextCursor` for the next page. */
export interface InboxPage {
  readonly items: InboxItem[];
  readonly total: number;
  readonly nextCursor?: string;
  /** Why the inbox may be missing runs: the namespace lacks search attributes it lists runs by (named, with the fix). */
  readonly warning?: string;
}

/** The most runs one inbox listing reads (one visibility list, pages of 1,000). */
const MAX_SCAN = 10_000;
export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;

/** A waiting run as the listing found it; `since` is when it began to wait (its start when unknown). */
export interface WaitingRun {
  readonly workflowId: string;
  readonly startTime: Date;
  readonly since: number;
  readonly summary: WaitingSummary | undefined;
  /** The agent's version, from the run's summary (`cairnRun`, published in the same upsert). */
  readonly agentVersion?: string;
  /** The run's scope (run-scope.ts): its ids are the thread's, as the chat surfaces show them. */
  readonly scope: string | undefined;
}

/**
 * Every run waiting on a person (`tenant`'s only, when given), oldest-waiting first: one
 * visibility list (memos included), no Query. Each page of the inbox is a slice of this.
 */
export async function listWaiting(client: CairnClient, tenant?: string): Promise<readonly WaitingRun[]> {
  const found: WaitingRun[] = [];
  for await (const info of listRuns(client.temporal, {
    query: inboxQuery(client.taskQueue, tenant),
    pageSize: 1_000,
  })) {
    const memo = info.memo?.[WAITING_MEMO] as WaitingSummary | null | undefined;
    const summary = memo?.v === 1 ? memo : undefined;
    const agentVersion = runSummaryOf(info.memo)?.agentVersion;
    found.push({
      workflowId: info.workflowId,
      startTime: info.startTime,
      since: summary?.since ?? info.startTime.getTime(),
      summary,
      ...(agentVersion !== undefined && { agentVersion }),
      scope: runScope(info.raw.firstRunId || info.runId),
    });
    if (found.length >= MAX_SCAN) break;
  }
  return found.sort(
    (a, b) => a.since - b.since || (a.workflowId < b.workflowId ? -1 : a.workflowId > b.workflowId ? 1 : 0),
  );
}

/**
 * The runs waiting on a person (`tenant`'s only, when given), oldest-waiting first, a page of
 * `limit` after `cursor`. Answered from visibility alone: each run publishes what it waits for in
 * its memo (workflows/inbox-memo.ts). Only a run from before that (no memo) or whose summary had to
 * leave the arguments out is asked by Query, within the client's read deadline (no answer: the memo's
 * summary, or no item). With `listings`, concurrent and closely following
 * reads of a tenant share one listing (servers/http/inbox-listings.ts).
 */
export async function readInbox(
  client: CairnClient,
  agents: readonly Agent[],
  temporalUiUrl: string | undefined,
  tenant?: string,
  page: { readonly cursor?: string | undefined; readonly limit?: number | undefined } = {},
  listings?: InboxListings<readonly WaitingRun[]>,
): Promise<InboxPage> {
  if (tenant !== undefined && !TENANT_ID.test(tenant)) throw new TypeError(`Invalid tenant "${tenant}".`);
  const limit = Math.min(Math.max(page.limit ?? DEFAULT_PAGE, 1), MAX_PAGE);
  const after = page.cursor === undefined ? undefined : parseCursor(page.cursor);
  // Runs publish what they wait for only where the namespace has all of Cairn's search attributes:
  // with some missing (an upgrade that registered the first two), say which, rather than list nothing silently.
  const missing = await client.missingSearchAttributes();
  const warning = missing.length > 0 ? searchAttributesHint(client.temporal.options.namespace, missing) : undefined;
  if (missing.includes('CairnPhase') || (tenant !== undefined && missing.includes('CairnTenant')))
    return { items: [], total: 0, ...(warning && { warning }) };
  const found = listings
    ? await listings.get(tenant ?? '', () => listWaiting(client, tenant))
    : await listWaiting(client, tenant);
  const namespace = client.temporal.options.namespace;
  const link = (workflowId: string) =>
    temporalUiUrl
      ? {
          temporalUrl: `${temporalUiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`,
        }
      : {};
  // The cursor is a key (waiting since, run id), not a position: a page stays right however the list changed since the last one.
  const from = after ? firstAfter(found, after) : 0;
  const chosen = found.slice(from, from + limit);
  const items = await Promise.all(
    chosen.map(async ({ workflowId, startTime, summary, scope, agentVersion }): Promise<InboxItem | undefined> => {
      // A run waiting on its budget from before runs published that (no budget in its summary): its state says what it waits for.
      if (!summary || (summary.phase === 'awaiting_budget' && !summary.budget))
        return legacyItem(client, agents, workflowId, startTime, scope, link(workflowId));
      // A summary without the arguments (they were too large for the memo): the run's own state has them.
      const read = summary.truncated ? client.run(workflowId) : undefined;
      const asked = await read?.state({ deadlineMs: read.readDeadlineMs }).catch(() => undefined);
      const state = asked?.stale ? undefined : asked;
      const waiting = withSchemas(
        agents,
        summary.agent,
        state ?? {
          clarification: summary.clarification,
          reviews: summary.reviews,
          ...(summary.budget && { budget: summary.budget }),
        },
        scope,
      );
      if (waiting.length === 0) return undefined;
      return {
        runId: workflowId,
        agent: summary.agent,
        ...(agentVersion !== undefined && { agentVersion }),
        phase: summary.phase,
        startedAt: startTime.toISOString(),
        waitingSince: new Date(summary.since).toISOString(),
        ...(summary.request && { request: summary.request }),
        exchange: summary.exchange,
        waiting,
        ...link(workflowId),
        ...(!state && { stale: true as const }),
      };
    }),
  );
  const last = chosen.at(-1);
  return {
    items: items.filter((i) => i !== undefined),
    total: found.length,
    ...(last && from + chosen.length < found.length && { nextCursor: cursorOf(last.since, last.workflowId) }),
    ...(warning && { warning }),
  };
}

/** The index of the first run after the cursor's key (binary search: the list is sorted by that key). */
function firstAfter(found: readonly WaitingRun[], after: { since: number; runId: string }): number {
  let lo = 0;
  let hi = found.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const f = found[mid]!;
    if (f.since < after.since || (f.since === after.since && f.workflowId <= after.runId)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function cursorOf(since: number, runId: string): string {
  return Buffer.from(JSON.stringify([since, runId])).toString('base64url');
}

function parseCursor(cursor: string): { since: number; runId: string } {
  try {
    const [since, runId] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown, unknown];
    if (typeof since === 'number' && typeof runId === 'string') return { since, runId };
  } catch {
    // below
  }
  throw new HttpError(400, 'invalid_request', 'cursor is not one the inbox gave.');
}

/** The interrupts, each review with its tool's argument schema (to check an edit), each question the schema its answer is held to. */
function withSchemas(
  agents: readonly Agent[],
  agent: string,
  state: Pick<RunState, 'clarification' | 'reviews' | 'budget'>,
  scope: string | undefined,
): InboxItem['waiting'] {
  return pendingInterrupts(state as RunState, scope).map((p) =>
    p.kind === 'review'
      ? { ...p, ...schemaOf(agents, agent, p.review.name) }
      : p.kind === 'budget'
        ? { ...p, schema: budgetDecisionSchema(p.request) }
        : { ...p, schema: answerSchema(p, p.tool ? schemaOf(agents, agent, p.tool).schema : undefined) },
  );
}

/** A run from before runs published what they wait for: read by Query (its state and events). */
async function legacyItem(
  client: CairnClient,
  agents: readonly Agent[],
  workflowId: string,
  startTime: Date,
  scope: string | undefined,
  link: { temporalUrl?: string },
): Promise<InboxItem | undefined> {
  const run = client.run(workflowId);
  const state = await run.state({ deadlineMs: run.readDeadlineMs }).catch(() => undefined);
  // Visibility lags the run a little: one decided a moment ago is left out.
  if (!state) return undefined;
  const waiting = withSchemas(agents, state.agent, state, scope);
  if (waiting.length === 0) return undefined;
  const told = state.stale ? undefined : await conversationOf(run).catch(() => undefined);
  return {
    runId: workflowId,
    agent: state.agent,
    phase: state.phase,
    startedAt: startTime.toISOString(),
    waitingSince: new Date(told?.waitingSince ?? startTime.getTime()).toISOString(),
    ...(told?.request && { request: told.request }),
    exchange: told?.exchange ?? [],
    waiting,
    ...link,
    ...(state.stale && { stale: true as const }),
  };
}

/** At most this many pages of a run's events are read for its card (each page is bounded in size). */
const MAX_PAGES = 4;

/**
 * What the card tells of the conversation, from one read of the run's events (one Query per page):
 * the request (`run_started`), the latest words of the person (a message or answer) and of the
 * agent (a model turn's text), and when it began to wait (its latest `question` or `review`).
 */
async function conversationOf(
  run: AgentRunHandle,
): Promise<{ request?: string; exchange: InboxItem['exchange']; waitingSince?: number }> {
  let request: string | undefined;
  let waitingSince: number | undefined;
  const said: { offset: number; role: 'user' | 'assistant'; text: string }[] = [];
  for (let from = 0, pages = 0; pages < MAX_PAGES; pages++) {
    const page = await run.readStream({
      topics: ['run_started', 'question', 'review', 'human', 'model_turn'],
      from_offset: from,
    });
    for (const item of page.items) {
      const event = decodeJsonItem(item.data) as
        | { type?: string; at?: number; prompt?: string; text?: string; kind?: string; detail?: unknown }
        | undefined;
      if (event?.type === 'run_started' && typeof event.prompt === 'string') request = cut(event.prompt, REQUEST_CHARS);
      if (event?.type === 'question' || event?.type === 'review') waitingSince = event.at;
      if (event?.type === 'model_turn' && typeof event.text === 'string' && event.text.trim() !== '')
        said.push({ offset: item.offset, role: 'assistant', text: cut(event.text, EXCHANGE_CHARS) });
      if (event?.type === 'human' && (event.kind === 'message' || event.kind === 'answer'))
        said.push({
          offset: item.offset,
          role: 'user',
          text: cut(typeof event.detail === 'string' ? event.detail : JSON.stringify(event.detail), EXCHANGE_CHARS),
        });
    }
    if (!page.more_ready) break;
    from = page.next_offset;
  }
  return {
    ...(request !== undefined && { request }),
    exchange: said.slice(-2).map(({ role, text }) => ({ role, text })),
    ...(waitingSince !== undefined && { waitingSince }),
  };
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The JSON Schema of `tool`'s arguments, when the handler knows the agent. */
export function schemaOf(agents: readonly Agent[], agent: string, tool: string): { schema?: Record<string, unknown> } {
  const schema = agents.find((a) => a.name === agent)?.tools.find((t) => t.name === tool)?.spec.args_schema;
  return schema ? { schema: schema as Record<string, unknown> } : {};
}
