/**
 * The runs of a tenant, for the runs page (`GET /runs`): one visibility list per page, newest first
 * (open runs, then the latest ended), filtered by agent, phase, status, user and start time in the
 * visibility query, and by outcome code on the page (memos cannot be searched). Each row is read
 * from what the run published — its summary (`cairnRun`: request, turns, tokens, cost), what it
 * waits for (`cairnWaiting`) and how it ended (`cairnEnded`) — never asked of the run: no Query per
 * run. A run of a chain that continued as new is listed once, as its latest run. Node-only.
 */
import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { CairnClient } from '../../client/cairn-client.js';
import { listRunsPage } from '../../client/list-runs.js';
import { isRunEndCode, RUN_END_CODES } from '../../shared/agent/run-outcome.js';
import {
  CairnAgent,
  CairnPhase,
  CairnUser,
  TENANT_ID,
  USER_MEMO,
  WAITING_MEMO,
} from '../../workflows/contract/index.js';
import { endedSummaryOf } from '../../workflows/contract/ended-memo.js';
import { runSummaryOf } from '../../workflows/contract/run-summary-memo.js';
import type { WaitingSummary } from '../../workflows/contract/waiting-memo.js';
import { HttpError } from './http-error.js';

/** A run as the runs page lists it. Counts are the run's summary's: for a working run, as of its last wait. */
export interface RunRow {
  readonly runId: string;
  readonly agent?: string;
  /** Temporal's status, lower case: running, completed, failed, canceled, terminated, timed_out. */
  readonly status: string;
  /** `CairnPhase`: running, backing_off, awaiting_*, finalizing, done. */
  readonly phase?: string;
  /** How it ended: `answered`, a run end code (shared/agent/run-outcome.ts), or Temporal's status when the run did not say. */
  readonly outcome?: string;
  readonly request?: string;
  readonly user?: string;
  readonly startedAt: string;
  readonly waitingSince?: string;
  readonly endedAt?: string;
  readonly turns?: number;
  readonly tokensIn?: number;
  readonly tokensOut?: number;
  readonly cost?: number;
  /** The run that started this one as an agent tool. */
  readonly parentRunId?: string;
}

/** What a listing may be narrowed by (validated: every value goes into a visibility query). */
export interface RunFilters {
  readonly agent?: string;
  readonly phase?: string;
  readonly status?: string;
  readonly outcome?: string;
  readonly user?: string;
  /** ISO times: runs started at or after `from`, at or before `to`. */
  readonly from?: string;
  readonly to?: string;
}

export const RUN_PHASES = [
  'running',
  'backing_off',
  'awaiting_clarification',
  'awaiting_review',
  'awaiting_budget',
  'finalizing',
  'done',
] as const;
/** Temporal's status names, as the page says them and as visibility queries them. */
const STATUSES: Record<string, string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  canceled: 'Canceled',
  terminated: 'Terminated',
  timed_out: 'TimedOut',
};
export const RUN_OUTCOMES = ['answered', ...RUN_END_CODES, ...Object.keys(STATUSES).filter((s) => s !== 'running')];
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,99}$/;
/** A user as `authorize` gives it may hold any character: in a query, none that ends a string. */
const USER = /^[^'"\\\n\r]{1,200}$/;

export const DEFAULT_RUNS_PAGE = 25;
export const MAX_RUNS_PAGE = 200;
/** At most this many visibility pages are read for one page of runs filtered by outcome; the cursor goes on from there. */
const MAX_SCANNED_PAGES = 5;

/** The filters of a request's search parameters; 400 for a value that is not one. */
export function runFiltersOf(params: URLSearchParams): RunFilters {
  const filters: Record<string, string> = {};
  const take = (key: keyof RunFilters, ok: (v: string) => boolean, what: string) => {
    const value = params.get(key)?.trim();
    if (!value) return;
    if (!ok(value)) throw new HttpError(400, 'invalid_request', `${key} must be ${what}.`);
    filters[key] = value;
  };
  take('agent', (v) => NAME.test(v), 'an agent name');
  take('phase', (v) => (RUN_PHASES as readonly string[]).includes(v), `one of ${RUN_PHASES.join(', ')}`);
  take('status', (v) => Object.hasOwn(STATUSES, v), `one of ${Object.keys(STATUSES).join(', ')}`);
  take('outcome', (v) => RUN_OUTCOMES.includes(v), `one of ${RUN_OUTCOMES.join(', ')}`);
  take('user', (v) => USER.test(v), 'a user id without quotes or backslashes');
  const iso = (v: string) => !Number.isNaN(Date.parse(v));
  take('from', iso, 'a time (ISO 8601)');
  take('to', iso, 'a time (ISO 8601)');
  return filters;
}

/** The visibility query for `tenant`'s runs on `taskQueue` that pass `filters` (all but outcome, which is the memo's). */
export function runsQuery(taskQueue: string, tenant: string | undefined, filters: RunFilters): string {
  if (tenant !== undefined && !TENANT_ID.test(tenant)) throw new TypeError(`Invalid tenant "${tenant}".`);
  const parts = [`WorkflowType = 'agentRun'`, `TaskQueue = '${taskQueue.replaceAll("'", "\\'")}'`];
  if (tenant !== undefined) parts.push(`CairnTenant = '${tenant}'`);
  if (filters.agent) parts.push(`CairnAgent = '${filters.agent}'`);
  if (filters.phase) parts.push(`CairnPhase = '${filters.phase}'`);
  if (filters.user) parts.push(`CairnUser = '${filters.user}'`);
  if (filters.from) parts.push(`StartTime >= '${new Date(filters.from).toISOString()}'`);
  if (filters.to) parts.push(`StartTime <= '${new Date(filters.to).toISOString()}'`);
  const status = filters.status ? STATUSES[filters.status] : statusOfOutcome(filters.outcome);
  // The runs of a chain before its latest continued as new: the chain is listed once.
  parts.push(status ? `ExecutionStatus = '${status}'` : `ExecutionStatus != 'ContinuedAsNew'`);
  return parts.join(' AND ');
}

/** How many runs `query` finds, by Temporal status as the page names it (`timed_out`): one visibility count. */
export async function countByStatus(client: CairnClient, query: string): Promise<Record<string, number>> {
  const { groups } = await client.temporal.workflow.count(`${query} GROUP BY ExecutionStatus`);
  const byStatus: Record<string, number> = {};
  for (const group of groups) {
    const name = String(group.groupValues[0] ?? '');
    byStatus[name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase()] = group.count;
  }
  return byStatus;
}

/** The Temporal status an outcome implies, where one does (answered and the end codes may be Completed or Failed). */
function statusOfOutcome(outcome: string | undefined): string | undefined {
  if (outcome === undefined) return undefined;
  if (Object.hasOwn(STATUSES, outcome)) return STATUSES[outcome];
  return outcome === 'answered' ? 'Completed' : undefined;
}

/** A row of the runs page from what visibility keeps of a run. */
export function runRow(info: WorkflowExecutionInfo): RunRow {
  const memo = info.memo;
  const summary = runSummaryOf(memo);
  const ended = endedSummaryOf(memo);
  const waiting = memo?.[WAITING_MEMO] as WaitingSummary | null | undefined;
  const status = info.status.name.toLowerCase().replace('cancelled', 'canceled');
  const agent = info.typedSearchAttributes.get(CairnAgent) ?? ended?.agent ?? waiting?.agent;
  const user = info.typedSearchAttributes.get(CairnUser) ?? (memo?.[USER_MEMO] as string | undefined);
  const phase = info.typedSearchAttributes.get(CairnPhase);
  const request = summary?.request ?? waiting?.request;
  const waitingSince = waiting?.v === 1 ? waiting.since : summary?.waitingSince;
  const usage = summary && {
    tokensIn: summary.tokensIn,
    tokensOut: summary.tokensOut,
    cost: summary.cost,
  };
  const turns = ended?.turn ?? summary?.turns;
  const outcome = outcomeOf(status, ended);
  return {
    runId: info.workflowId,
    ...(agent !== undefined && { agent }),
    status,
    ...(phase !== undefined && { phase }),
    ...(outcome !== undefined && { outcome }),
    ...(request !== undefined && { request: request.length > 200 ? `${request.slice(0, 199)}…` : request }),
    ...(user !== undefined && { user }),
    startedAt: info.startTime.toISOString(),
    ...(status === 'running' && waitingSince !== undefined && { waitingSince: new Date(waitingSince).toISOString() }),
    ...(info.closeTime && { endedAt: info.closeTime.toISOString() }),
    ...(turns !== undefined && { turns }),
    ...usage,
    ...(info.parentExecution?.workflowId && { parentRunId: info.parentExecution.workflowId }),
  };
}

/** How the run ended: its ended memo's status and reason (`<code>: …`), else Temporal's status. */
function outcomeOf(status: string, ended: ReturnType<typeof endedSummaryOf>): string | undefined {
  if (status === 'running') return undefined;
  // Ended from outside (after whatever the run published): Temporal's word is the last.
  if (status === 'terminated' || status === 'timed_out') return status;
  if (ended?.status === 'completed') return 'answered';
  if (ended?.status === 'canceled') return 'cancelled';
  const code = /^([a-z_]+):/.exec(ended?.reason ?? '')?.[1];
  if (isRunEndCode(code)) return code;
  return status === 'completed' ? undefined : status;
}

/** One page of runs: `nextCursor` while there are more. */
export interface RunsListing {
  readonly items: RunRow[];
  readonly nextCursor?: string;
}

/**
 * A page of the runs `query` lists, `limit` of them after `cursor`, keeping those `keep` admits. The
 * cursor is visibility's own next-page token and how many runs of that page were already shown: a
 * page filtered on the memo may end in the middle of one of visibility's.
 */
export async function listRunRows(
  client: CairnClient,
  query: string,
  page: { readonly limit: number; readonly cursor?: string | undefined },
  keep: (row: RunRow) => boolean = () => true,
): Promise<RunsListing> {
  const at =
    page.cursor === undefined ? { token: new Uint8Array(), skip: 0, size: page.limit } : parseCursor(page.cursor);
  const items: RunRow[] = [];
  let { token, skip } = at;
  for (let scanned = 0; scanned < MAX_SCANNED_PAGES; scanned++) {
    const { runs, nextPageToken } = await listRunsPage(client.temporal, {
      query,
      pageSize: at.size,
      nextPageToken: token,
    });
    for (let i = skip; i < runs.length; i++) {
      const row = runRow(runs[i]!);
      if (!keep(row)) continue;
      items.push(row);
      if (items.length < page.limit) continue;
      if (i + 1 < runs.length) return { items, nextCursor: cursorOf(token, i + 1, at.size) };
      // Visibility gives a token after any full page: a run behind it is asked for, so the last page offers no next.
      const more = nextPageToken.length > 0 && (await hasRuns(client, query, nextPageToken));
      return { items, ...(more && { nextCursor: cursorOf(nextPageToken, 0, at.size) }) };
    }
    if (nextPageToken.length === 0) return { items };
    token = nextPageToken;
    skip = 0;
  }
  return { items, nextCursor: cursorOf(token, 0, at.size) };
}

async function hasRuns(client: CairnClient, query: string, nextPageToken: Uint8Array): Promise<boolean> {
  const response = await client.temporal.workflowService.listWorkflowExecutions({
    namespace: client.temporal.options.namespace,
    query,
    pageSize: 1,
    nextPageToken,
  });
  return response.executions.length > 0;
}

function cursorOf(token: Uint8Array, skip: number, size: number): string {
  return Buffer.from(JSON.stringify([Buffer.from(token).toString('base64'), skip, size])).toString('base64url');
}

function parseCursor(cursor: string): { token: Uint8Array; skip: number; size: number } {
  try {
    const [token, skip, size] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[];
    if (
      typeof token === 'string' &&
      Number.isSafeInteger(skip) &&
      Number.isSafeInteger(size) &&
      (skip as number) >= 0 &&
      (size as number) >= 1 &&
      (size as number) <= MAX_RUNS_PAGE
    )
      return { token: new Uint8Array(Buffer.from(token, 'base64')), skip: skip as number, size: size as number };
  } catch {
    // below
  }
  throw new HttpError(400, 'invalid_request', 'cursor is not one the runs listing gave.');
}
