/**
 * Runs over time, for the runs page's third chart: how many runs started in each bucket of a
 * window, by Temporal status. One visibility `count … GROUP BY ExecutionStatus` per bucket and at
 * most `MAX_TIME_BUCKETS` of them, whatever the window: never a Query, never a list. The window is
 * the filters' start-time range — `to` (or now, whichever is earlier) back to `from`, or 12 hours
 * when there is no `from` — cut into buckets of a round width (1 min … 30 d), the newest ending at
 * the window's end. Node-only (client side).
 */
import { presenceOf, SKEWED_MS } from '../../client/worker-presence.js';
import type { CairnClient } from '../../client/cairn-client.js';
import { countByStatus, runsQuery, type RunFilters } from './run-listing.js';

/** The most buckets (so visibility counts) one chart asks for. */
export const MAX_TIME_BUCKETS = 12;
/** The window when the filters name no start: the last 12 hours, by the hour. */
export const DEFAULT_WINDOW_MS = 12 * 3_600_000;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WIDTHS = [
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
  14 * DAY,
  30 * DAY,
];

/** Runs started in `[from, to)` (the newest bucket: `[from, to]`), by Temporal status, lower case. */
export interface RunsInBucket {
  readonly from: string;
  readonly to: string;
  readonly byStatus: Record<string, number>;
}

export interface RunsOverTime {
  readonly from: string;
  readonly to: string;
  /** Each bucket's width; the oldest may be shorter, cut at `from`. */
  readonly bucketMs: number;
  /** Oldest first. Empty when the window is (a `from` after `to` or in the future). */
  readonly buckets: readonly RunsInBucket[];
}

/** The buckets' bounds for `filters` at `now`, oldest first. Pure. */
export function timeBuckets(
  filters: Pick<RunFilters, 'from' | 'to'>,
  now: number,
): { readonly from: number; readonly to: number; readonly bucketMs: number; readonly bounds: [number, number][] } {
  const to = Math.min(filters.to ? Date.parse(filters.to) : now, now);
  const from = filters.from ? Date.parse(filters.from) : to - DEFAULT_WINDOW_MS;
  const span = to - from;
  if (!(span > 0)) return { from, to, bucketMs: 0, bounds: [] };
  const bucketMs =
    WIDTHS.find((width) => Math.ceil(span / width) <= MAX_TIME_BUCKETS) ??
    Math.ceil(span / MAX_TIME_BUCKETS / DAY) * DAY;
  const count = Math.ceil(span / bucketMs);
  const bounds: [number, number][] = [];
  for (let i = count; i >= 1; i--) bounds.push([Math.max(from, to - i * bucketMs), to - (i - 1) * bucketMs]);
  return { from, to, bucketMs, bounds };
}

/** How many of `tenant`'s runs passing `filters` (but outcome, and with the window for from/to) started in each bucket. */
export async function countRunsOverTime(
  client: CairnClient,
  tenant: string | undefined,
  filters: RunFilters,
  now?: number,
): Promise<RunsOverTime> {
  const { outcome: _outcome, from: _from, to: _to, ...counted } = filters;
  const window = timeBuckets(filters, now ?? (await serverNow(client, Date.now())));
  const base = runsQuery(client.taskQueue, tenant, counted);
  const iso = (ms: number) => new Date(ms).toISOString();
  const buckets = await Promise.all(
    window.bounds.map(async ([from, to], i) => {
      const last = i === window.bounds.length - 1;
      const query = `${base} AND StartTime >= '${iso(from)}' AND StartTime ${last ? '<=' : '<'} '${iso(to)}'`;
      return { from: iso(from), to: iso(to), byStatus: await countByStatus(client, query) };
    }),
  );
  return { from: iso(window.from), to: iso(window.to), bucketMs: window.bucketMs, buckets };
}

/**
 * Now, by the Temporal server's clock when this process's disagrees with it by more than a day (a
 * fake clock, a bad NTP): the queue's newest poll says what time it is there. Start times are the
 * server's, so a window of this process's clock would count nothing.
 */
async function serverNow(client: CairnClient, now: number): Promise<number> {
  const { newestPoll } = await presenceOf(client.temporal, client.taskQueue).catch(() => ({ newestPoll: 0 }));
  return newestPoll > 0 && Math.abs(now - newestPoll) > SKEWED_MS ? newestPoll : now;
}
