/**
 * createCairnHttpHandler: people reach runs over HTTP. One web-standard `Request → Response`
 * function (mount it in Hono, Next route handlers, Express or Node's `http` via
 * `toNodeListener`) that speaks plain JSON + SSE, AG-UI (`POST /agui`) and the AI SDK's UI
 * message stream (`POST /chat`), and serves the inbox page and the runs page (`GET /runs.html`). Stateless: every request is answered
 * from Temporal, so any instance answers any request. Node-only (client side).
 */
import type { Agent } from '../../shared/agent/define-agent.js';
import type { CairnClient, StartRunOptions } from '../../client/cairn-client.js';
import type { LiveSource } from '../../client/redis-live-source.js';
import { agUiRun } from './agui-endpoint.js';
import type { Authorize } from './authorize.js';
import { chat, resumeChat } from './chat-endpoint.js';
import { callerOf, type HttpContext } from './http-context.js';
import { HttpError } from './http-error.js';
import { INBOX_PAGE } from './inbox-page.js';
import { RequestGate } from './request-gate.js';
import { InboxListings } from './inbox-listings.js';
import { RunFeeds } from './run-feeds.js';
import { PAGE_HEADERS, runPage } from './run-page.js';
import { answer, cancel, inbox, message, readRun, review, startRun, streamEvents } from './rest-endpoints.js';
import { budget } from './budget-endpoint.js';
import { runError } from './run-errors.js';
import { RUNS_PAGE } from './runs-page.js';
import { listRunsEndpoint } from './run-listing-endpoint.js';

export interface CairnHttpHandlerOptions {
  readonly client: CairnClient;
  /** The agents served: requests may name only these (the first is the default), and their tools' schemas check edits. Default: any agent, none by default. */
  readonly agents?: readonly Agent[];
  /** Asked before every act; see `bearerToken`. Default: everything is allowed (put the handler behind your own auth). */
  readonly authorize?: Authorize;
  /** Where the handler is mounted, e.g. `/api/cairn`. Default: the root. */
  readonly basePath?: string;
  /** The largest request body, in bytes. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Requests in flight per instance (open streams not counted). Default 256. */
  readonly maxInFlight?: number;
  /** Answers, decisions and cancels in flight per run per instance. Default 4. */
  readonly maxInFlightPerRun?: number;
  /** A thread's workflow id is this prefix and the thread id. Default `cairn-thread-`. */
  readonly threadPrefix?: string;
  /** The Temporal UI's address, for links from the inbox (e.g. `http://localhost:8233`). */
  readonly temporalUiUrl?: string;
  /** An origin allowed to call the handler from a browser (CORS). Default: none. */
  readonly corsOrigin?: string;
  /** More start options for the runs requests start (model, policy, Temporal options). */
  readonly startOptions?: (run: {
    readonly agent: string;
    readonly workflowId: string;
    readonly request: Request;
  }) => Partial<StartRunOptions>;
  /**
   * Where live deltas come from when the worker streams them apart from the run's history
   * (`redisTransport`): e.g. `redisLiveSource({ url })` with the transport's `keyPrefix`. AG-UI
   * (`POST /agui`) and UI stream (`POST /chat`, `GET /chat/:id/stream`) windows merge them in, from
   * the moment each window opens. Not needed for `streaming: true` (durable deltas are run events).
   * `GET /runs/:id/events` stays on the run's events. Default: none.
   */
  readonly live?: LiveSource;
  /**
   * Runs in flight per tenant, across every instance and worker: a request of a tenant (see
   * `authorize`) that would start one more run than this gets 429 `tenant_runs_limit` with
   * Retry-After. Counted through visibility (`CairnTenant`, running `agentRun`s, child runs
   * included), so concurrent starts can overshoot by the starts in flight. A number for every
   * tenant, or per tenant (undefined: no limit). Default: none.
   */
  readonly maxRunsPerTenant?: number | ((tenant: string) => number | undefined);
  /**
   * How long one visibility listing of a tenant's waiting runs answers the inbox reads that follow
   * it (ms): concurrent reads share the listing in flight, and reads within this window reuse it.
   * A read after the window is still answered at once from that listing (if it began at most 15 s
   * ago) while a fresh one runs for the reads after it, so a tenant costs visibility at most one
   * listing per window and a poll never waits for one. The handler's own acts (any POST of the
   * tenant's) forget it: the next read waits for a listing made after the act. 0: every read
   * lists afresh (reads in flight still share). Default 1,000.
   */
  readonly inboxReuseMs?: number;
  /** Told of unexpected errors (500s); the client only ever gets `{ error: { code: 'internal' } }`. Default: console.error. */
  readonly onError?: (error: unknown) => void;
}

export type CairnHttpHandler = (request: Request) => Promise<Response>;

export function createCairnHttpHandler(options: CairnHttpHandlerOptions): CairnHttpHandler {
  const ctx: HttpContext = {
    client: options.client,
    agents: options.agents ?? [],
    authorize: options.authorize,
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    gate: new RequestGate(options.maxInFlight ?? 256, options.maxInFlightPerRun ?? 4),
    feeds: new RunFeeds(),
    live: options.live,
    threadPrefix: options.threadPrefix ?? 'cairn-thread-',
    temporalUiUrl: options.temporalUiUrl,
    startOptions: options.startOptions,
    maxRunsPerTenant: options.maxRunsPerTenant,
    inboxListings: new InboxListings(options.inboxReuseMs ?? 1_000),
    onError: options.onError ?? ((error) => console.error('cairn http:', error)),
  };
  const base = (options.basePath ?? '').replace(/\/$/, '');
  const cors: Record<string, string> = options.corsOrigin
    ? {
        'access-control-allow-origin': options.corsOrigin,
        'access-control-allow-headers': 'authorization, content-type, last-event-id',
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        vary: 'origin',
      }
    : {};

  return async (request) => {
    const url = new URL(request.url);
    let workflowId: string | undefined;
    try {
      if (!url.pathname.startsWith(base)) throw new HttpError(404, 'not_found', 'No such endpoint.');
      if (request.method === 'OPTIONS' && options.corsOrigin) return new Response(null, { status: 204, headers: cors });
      const parts = url.pathname.slice(base.length).split('/').filter(Boolean).map(decodeSegment);
      const [head, id, sub, subId] = parts;
      const route = `${request.method} /${[head, id && ':id', sub, subId && ':sub'].filter(Boolean).join('/')}`;
      workflowId = id;
      const run = () => ctx.client.run(id!);
      let response: Response;
      switch (route) {
        case 'GET /':
        case 'GET /inbox.html':
          response = new Response(INBOX_PAGE, {
            headers: {
              'content-type': 'text/html; charset=utf-8',
              'content-security-policy': "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'",
              'x-frame-options': 'DENY',
            },
          });
          break;
        case 'GET /runs.html':
          // Static, as the inbox page: the runs come from GET /runs, authorized as the inbox.
          response = new Response(RUNS_PAGE, { headers: PAGE_HEADERS });
          break;
        case 'GET /runs':
          response = await listRunsEndpoint(ctx, request);
          break;
        case 'GET /runs/:id/page':
          // Static, as the inbox page: the run's data comes through the JSON routes, each authorized.
          response = new Response(
            runPage({ temporalUiUrl: ctx.temporalUiUrl, namespace: ctx.client.temporal.options.namespace }),
            { headers: PAGE_HEADERS },
          );
          break;
        case 'POST /runs':
          response = await startRun(ctx, request);
          break;
        case 'GET /runs/:id':
          response = await readRun(ctx, request, run());
          break;
        case 'GET /runs/:id/events':
          response = await streamEvents(ctx, request, run(), url);
          break;
        case 'POST /runs/:id/answer':
          response = await answer(ctx, request, run());
          break;
        case 'POST /runs/:id/reviews/:sub':
          response = await review(ctx, request, run(), subId!);
          break;
        case 'POST /runs/:id/budget':
          response = await budget(ctx, request, run());
          break;
        case 'POST /runs/:id/messages':
          response = await message(ctx, request, run());
          break;
        case 'POST /runs/:id/cancel':
          response = await cancel(ctx, request, run());
          break;
        case 'GET /inbox':
          response = await inbox(ctx, request);
          break;
        case 'POST /agui':
          response = await agUiRun(ctx, request);
          break;
        case 'POST /chat':
          response = await chat(ctx, request);
          break;
        case 'GET /chat/:id/stream':
          response = await resumeChat(ctx, request, id!);
          break;
        default:
          throw new HttpError(404, 'not_found', `No endpoint ${request.method} ${url.pathname}.`);
      }
      // An act (an answer, a decision, a start, a cancel) may change who waits: the next inbox read lists afresh.
      if (request.method === 'POST') ctx.inboxListings.forget(callerOf(request).tenant);
      for (const [key, value] of Object.entries(cors)) response.headers.set(key, value);
      return response;
    } catch (error) {
      // A refused or failed act may still have acted (an Update accepted, then a lost answer).
      if (request.method === 'POST') ctx.inboxListings.forget(callerOf(request).tenant);
      const e = runError(error, workflowId ?? '');
      if (e.status >= 500) ctx.onError(error);
      return e.toResponse(cors);
    }
  };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'invalid_request', 'A path segment is not valid URL encoding.');
  }
}
