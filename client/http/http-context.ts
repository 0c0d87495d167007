/**
 * What every endpoint of the HTTP handler works with: the client, the agents it serves, the
 * authorize hook, the bounds, and how a run is started for a thread. Built once by
 * `createCairnHttpHandler`; holds no run state (any instance answers any request). Node-only.
 */
import type { Agent } from '../../shared/agent/define-agent.js';
import type { CairnClient, StartRunOptions } from '../cairn-client.js';
import type { AgentRunHandle } from '../agent-run-handle.js';
import { checkAuthorized, type Authorize, type HttpAction } from './authorize.js';
import { HttpError } from './http-error.js';
import { readJsonBody } from './read-json-body.js';
import type { RequestGate } from './request-gate.js';
import type { RunFeeds } from './run-feeds.js';
import type { LiveSource } from '../redis-live-source.js';

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
  readonly startOptions: ((run: { readonly agent: string; readonly workflowId: string; readonly request: Request }) => Partial<StartRunOptions>) | undefined;
  readonly onError: (error: unknown) => void;
}

export function authorized(ctx: HttpContext, request: Request, action: HttpAction, workflowId?: string): Promise<void> {
  return checkAuthorized(ctx.authorize, request, action, workflowId === undefined ? undefined : { workflowId });
}

export function body(ctx: HttpContext, request: Request): Promise<unknown> {
  return readJsonBody(request, ctx.maxBodyBytes);
}

/** The agent a request names, or the first the handler serves; 422 for one it does not serve. */
export function agentName(ctx: HttpContext, requested: unknown): string {
  if (requested === undefined || requested === null) {
    const first = ctx.agents[0];
    if (!first) throw new HttpError(422, 'unknown_agent', 'Name the agent ("agent"): this server has no default agent.');
    return first.name;
  }
  if (typeof requested !== 'string') throw new HttpError(422, 'unknown_agent', '"agent" is an agent name.');
  if (ctx.agents.length > 0 && !ctx.agents.some((a) => a.name === requested))
    throw new HttpError(422, 'unknown_agent', `Unknown agent "${requested}"; this server runs: ${ctx.agents.map((a) => a.name).join(', ')}.`);
  return requested;
}

/**
 * Starts the thread's run, or finds it running: Temporal's id conflict policy (USE_EXISTING)
 * makes a repeated start a no-op, and its reuse policy lets a finished thread start a new run
 * under the same workflow id.
 */
export function startThread(ctx: HttpContext, request: Request, workflowId: string, agent: string, prompt: string): Promise<AgentRunHandle> {
  const extra = ctx.startOptions?.({ agent, workflowId, request }) ?? {};
  return ctx.client.start({
    ...extra,
    agent,
    prompt,
    workflowId,
    temporal: { ...extra.temporal, workflowIdConflictPolicy: 'USE_EXISTING', workflowIdReusePolicy: 'ALLOW_DUPLICATE' },
  });
}
