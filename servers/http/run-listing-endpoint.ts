/**
 * `GET /runs`: the caller's tenant's runs as JSON, for the runs page (runs-page.ts) and any client:
 * `?agent=&phase=&status=&outcome=&user=&from=&to=&limit=&cursor=`, each row from visibility (no
 * Query per run: run-listing.ts). With `counts=1`, also how many runs pass the filters by status,
 * the open ones by phase, and how many started per time bucket by status, for the page's charts
 * (visibility counts, at most 1 + 6 phases + 12 buckets; the outcome filter is not applied to them,
 * as memos cannot be counted). Authorized as the inbox is (`inbox`): it shows
 * the same kind of thing, the runs of the caller's tenant and their requests. Node-only.
 */
import { searchAttributesHint } from '../../client/cairn-client.js';
import { authorized, type HttpContext } from './http-context.js';
import { HttpError } from './http-error.js';
import {
  countByStatus,
  DEFAULT_RUNS_PAGE,
  listRunRows,
  MAX_RUNS_PAGE,
  RUN_PHASES,
  runFiltersOf,
  runsQuery,
  type RunFilters,
  type RunsListing,
} from './run-listing.js';
import { countRunsOverTime, MAX_TIME_BUCKETS, type RunsOverTime } from './runs-over-time.js';

export interface RunCounts {
  /** Runs that pass the filters (but outcome), by Temporal status. */
  readonly byStatus: Record<string, number>;
  /** Of those, the open ones by phase. */
  readonly byPhase: Record<string, number>;
  /** Runs started per time bucket by status, over the filters' time range or the last 12 hours (runs-over-time.ts). */
  readonly overTime: RunsOverTime;
}

export interface RunsResponse extends RunsListing {
  readonly counts?: RunCounts;
  readonly warning?: string;
}

export async function listRunsEndpoint(ctx: HttpContext, request: Request): Promise<Response> {
  const caller = await authorized(ctx, request, 'inbox');
  const url = new URL(request.url);
  const filters = runFiltersOf(url.searchParams);
  const rawLimit = url.searchParams.get('limit');
  const limit = rawLimit === null ? DEFAULT_RUNS_PAGE : Number(rawLimit);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_RUNS_PAGE)
    throw new HttpError(400, 'invalid_request', `limit is a whole number from 1 to ${MAX_RUNS_PAGE}.`);
  const cursor = url.searchParams.get('cursor') ?? undefined;
  const body = await ctx.gate.run(undefined, () =>
    readRuns(ctx, caller.tenant, filters, { limit, cursor }, url.searchParams.get('counts') === '1'),
  );
  return Response.json(body, { headers: { 'cache-control': 'no-store' } });
}

/** A page of `tenant`'s runs that pass `filters`, and their counts when asked. */
export async function readRuns(
  ctx: Pick<HttpContext, 'client'>,
  tenant: string | undefined,
  filters: RunFilters,
  page: { readonly limit: number; readonly cursor?: string | undefined },
  withCounts = false,
): Promise<RunsResponse> {
  const { client } = ctx;
  const missing = await client.missingSearchAttributes();
  const warning = missing.length > 0 ? searchAttributesHint(client.temporal.options.namespace, missing) : undefined;
  // Without CairnTenant a tenant's runs cannot be told apart: list none rather than another's.
  if (tenant !== undefined && missing.includes('CairnTenant')) return { items: [], ...(warning && { warning }) };
  const query = runsQuery(client.taskQueue, tenant, filters);
  const keep =
    filters.outcome === undefined ? undefined : (row: { outcome?: string }) => row.outcome === filters.outcome;
  const [listing, counts] = await Promise.all([
    listRunRows(client, query, page, keep),
    withCounts ? countRuns(ctx, tenant, filters) : undefined,
  ]);
  return { ...listing, ...(counts && { counts }), ...(warning && { warning }) };
}

const OPEN_PHASES = RUN_PHASES.filter((p) => p !== 'done');
/** The most visibility counts one `counts=1` read makes (by status, per open phase, per time bucket); they go at once. */
export const MAX_COUNT_CALLS = 1 + OPEN_PHASES.length + MAX_TIME_BUCKETS;

async function countRuns(
  { client }: Pick<HttpContext, 'client'>,
  tenant: string | undefined,
  filters: RunFilters,
): Promise<RunCounts> {
  const { outcome: _outcome, ...counted } = filters;
  const base = runsQuery(client.taskQueue, tenant, counted);
  const [byStatus, overTime, ...phases] = await Promise.all([
    countByStatus(client, base),
    countRunsOverTime(client, tenant, filters),
    ...OPEN_PHASES.map((phase) =>
      filters.phase !== undefined && filters.phase !== phase
        ? { count: 0 }
        : client.temporal.workflow.count(runsQuery(client.taskQueue, tenant, { ...counted, phase, status: 'running' })),
    ),
  ]);
  const byPhase: Record<string, number> = {};
  OPEN_PHASES.forEach((phase, i) => {
    if (phases[i]!.count > 0) byPhase[phase] = phases[i]!.count;
  });
  return { byStatus, byPhase, overTime };
}
