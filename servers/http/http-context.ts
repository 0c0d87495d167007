/**
 * What every endpoint of the HTTP handler works with: the client, the agents it serves, the
 * authorize hook, the bounds, and how a run is started for a thread. Built once by
 * `createCairnHttpHandler`; holds no run state (any instance answers any request). Node-only.
 */
import type { Agent } from '../../shared/agent/define-agent.js';
import type { CairnClient, StartRunOptions } from '../../client/cairn-client.js';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import { checkAuthorized, type Authorize, type Caller, type HttpAction } from './authorize.js';
import { tenantOf, INTERACTIVE_PRIORITY } from '../../client/cairn-client.js';
import { runError } from './run-errors.js';
import { workflowIdOf } from './thread-ids.js';
import { HttpError } from './http-error.js';
import { readJsonBody } from './read-json-body.js';
import type { RequestGate } from './request-gate.js';
import type { RunFeeds } from './run-feeds.js';
import type { LiveSource } from '../../client/redis-live-source.js';
import { withinTenantLimit, type MaxRunsPerTenant } from './tenant-limit.js';
import type { InboxListings } from './inbox-listings.js';
import type { WaitingRun } from './inbox.js';

export interface HttpContext {
  readonly client: CairnClient;
  readonly agents: readonly Agent[];
  readonly authorize: Authorize | undefined;
  readonly maxBodyBytes: number;
  readonly gate: RequestGate;
  /** One event subscription per run, shared by its SSE clients. */
  readonly feeds: RunFeeds;
  /** Live deltas that travel apart from the run's events (Redis), merged into AG-UI and UI stream windows. */
  readonly live: LiveSource | undefined;
  readonly threadPrefix: string;
  readonly temporalUiUrl: string | undefined;
  /** More start options for a run a request starts (a model, a policy, Temporal options). */
  readonly startOptions:
    | ((run: {
        readonly agent: string;
        readonly workflowId: string;
        readonly request: Request;
      }) => Partial<StartRunOptions>)
    | undefined;
  readonly maxRunsPerTenant: MaxRunsPerTenant | undefined;
  /** Each tenant's listing of waiting runs, shared by the inbox reads of a short window. */
  readonly inboxListings: InboxListings<readonly WaitingRun[]>;
  readonly onError: (error: unknown) => void;
}

/** Who asked each request (kept for the runs it starts). */
const callers = new WeakMap<Request, Caller>();

export function callerOf(request: Request): Caller {
  return callers.get(request) ?? {};
}

/**
 * Asks `authorize`; for a caller of a tenant, a run `workflowId` names must be the tenant's:
 * another tenant's run is 404 `unknown_run`, word for word what a run that never was gets.
 */
export async function authorized(
  ctx: HttpContext,
  request: Request,
  action: HttpAction,
  workflowId?: string,
): Promise<Caller> {
  const caller = await checkAuthorized(
    ctx.authorize,
    request,
    action,
    workflowId === undefined ? undefined : { workflowId },
  );
  callers.set(request, caller);
  if (caller.tenant !== undefined && workflowId !== undefined) await mustOwn(ctx, caller.tenant, workflowId, false);
  return caller;
}

/**
 * The workflow id of the caller's thread `threadId`: `<prefix><threadId>`, or, for a caller of a
 * tenant, `<prefix><tenant>:<threadId>` (two tenants' "support-1" are two runs). Asks `authorize`.
 */
export async function authorizedThread(
  ctx: HttpContext,
  request: Request,
  action: HttpAction,
  threadId: unknown,
): Promise<{ readonly workflowId: string; readonly caller: Caller }> {
  const unscoped = workflowIdOf(threadId, ctx.threadPrefix);
  const caller = await checkAuthorized(ctx.authorize, request, action, { workflowId: unscoped });
  callers.set(request, caller);
  if (caller.tenant === undefined) return { workflowId: unscoped, caller };
  const workflowId = workflowIdOf(threadId, `${ctx.threadPrefix}${caller.tenant}:`);
  await mustOwn(ctx, caller.tenant, workflowId, true);
  return { workflowId, caller };
}

/** 404 unless the run is the tenant's (`none`: a run that does not exist yet passes, for a thread). */
async function mustOwn(ctx: HttpContext, tenant: string, workflowId: string, none: boolean): Promise<void> {
  const owner = await tenantOf(ctx.client.temporal, workflowId).then(
    (t) => ({ t }),
    (error: Error) => {
      if (error.name === 'WorkflowNotFoundError') return undefined;
      throw runError(error, workflowId);
    },
  );
  if (owner === undefined ? !none : owner.t !== tenant)
    throw new HttpError(404, 'unknown_run', `No run with id "${workflowId}".`);
}

export function body(ctx: HttpContext, request: Request): Promise<unknown> {
  return readJsonBody(request, ctx.maxBodyBytes);
}

/** The agent a request names, or the first the handler serves; 422 for one it does not serve. */
export function agentName(ctx: HttpContext, requested: unknown): string {
  if (requested === undefined || requested === null) {
    const first = ctx.agents[0];
    if (!first)
      throw new HttpError(422, 'unknown_agent', 'Name the agent ("agent"): this server has no default agent.');
    return first.name;
  }
  if (typeof requested !== 'string') throw new HttpError(422, 'unknown_agent', '"agent" is an agent name.');
  if (ctx.agents.length > 0 && !ctx.agents.some((a) => a.name === requested))
    throw new HttpError(
      422,
      'unknown_agent',
      `Unknown agent "${requested}"; this server runs: ${ctx.agents.map((a) => a.name).join(', ')}.`,
    );
  return requested;
}

/**
 * Starts the thread's run, or finds it running: Temporal's id conflict policy (USE_EXISTING)
 * makes a repeated start a no-op, and its reuse policy lets a finished thread start a new run
 * under the same workflow id.
 */
export async function startThread(
  ctx: HttpContext,
  request: Request,
  workflowId: string,
  agent: string,
  prompt: string,
): Promise<AgentRunHandle> {
  const extra = ctx.startOptions?.({ agent, workflowId, request }) ?? {};
  const caller = callerOf(request);
  if (caller.tenant !== undefined) await withinTenantLimit(ctx.client, ctx.maxRunsPerTenant, caller.tenant, workflowId);
  return ctx.client.start({
    // A person waits on a run started over HTTP: it goes ahead of background runs.
    priority: { priorityKey: INTERACTIVE_PRIORITY },
    ...(caller.tenant !== undefined && { tenant: caller.tenant }),
    ...(caller.user !== undefined && { user: caller.user }),
    ...extra,
    agent,
    prompt,
    workflowId,
    temporal: { ...extra.temporal, workflowIdConflictPolicy: 'USE_EXISTING', workflowIdReusePolicy: 'ALLOW_DUPLICATE' },
  });
}
