/**
 * Per-tenant token and cost budgets per window (a UTC day, a UTC month) across a fleet of workers,
 * kept in Redis. Before each model call of a run that belongs to a tenant, the model activity
 * reads the tenant's window totals (one Lua script, atomic); when a window is spent, the call is
 * not sent and the activity returns a `tenant_budget` outcome that the planner treats like the
 * run's own budget end. After the call, the usage (tokens in and out, and the cost from
 * `models.prices`) is added to every window of the tenant atomically; the keys expire a day after
 * their window ends.
 *
 * The check does not reserve: calls in flight when a window runs out are charged after they
 * return, so a window may be overrun by those calls (a provider's usage is known only after a call).
 * Redis unreachable (or the `redis` package missing): calls go unchecked and uncharged, said once in
 * the log, and again when Redis is back. Runs without a tenant are not limited. Worker side only.
 */
import type { CallUsage } from '../../shared/model/model-usage.js';
import { tenantWindowText, type TenantWindowSpent } from '../../shared/model/model-response.js';
import { redisConnection, type OwnedRedisClient } from '../redis-connection.js';

/** What the budgets call on a node-redis client (`createClient()` of `redis` 6). */
interface RedisClient extends OwnedRedisClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** How long calls wait for the first connection to Redis before they go unchecked. */
const FIRST_CONNECT_MS = 5_000;

/** Limits of one window; either may be left out. */
export interface WindowLimit {
  /** Tokens in and out, as providers report them. */
  readonly maxTokens?: number;
  /** Cost in US dollars, from the worker's `models.prices`. */
  readonly maxCostUsd?: number;
}

/** A tenant's budget: per UTC day and per UTC month. */
export interface TenantBudget {
  readonly perDay?: WindowLimit;
  readonly perMonth?: WindowLimit;
}

/** `models.tenantBudgets` of `createCairnWorker` (docs/operations.md, "Per-tenant limits"). */
export interface TenantBudgetOptions {
  /** The budget of a tenant not named in `tenants`; none: such tenants are not limited. */
  readonly default?: TenantBudget;
  /** Budgets by tenant id; a tenant's own replaces the default (windows left out are not limited). */
  readonly tenants?: Readonly<Record<string, TenantBudget>>;
  /** The Redis every worker shares; default `redis://127.0.0.1:6379`. */
  readonly url?: string;
  /** Key prefix in Redis; default `cairn:tenant:`. Keys are `<prefix><tenant>:day:<yyyy-mm-dd>` and `<prefix><tenant>:month:<yyyy-mm>`. */
  readonly keyPrefix?: string;
  /**
   * When a window has reached this share of a limit before a call, the call goes and its reply says
   * so (`tenantWindowNear`): the run answers in one wrap-up turn, as near its own budget. Default 0.9; 1 for none.
   */
  readonly wrapUpAt?: number;
  /** The longest a Redis check may take before the call goes unchecked, in ms; default 1,000. */
  readonly timeoutMs?: number;
  /** Told once when Redis is unreachable, and when it is back; default `console.warn`. */
  readonly log?: (message: string) => void;
}

export type BudgetWindow = 'day' | 'month';

/** A window of a tenant's budget: its key suffix and when it ends (ms since the epoch, UTC). */
export interface WindowSpan {
  readonly window: BudgetWindow;
  /** `2026-11-26` for a day, `2026-11` for a month. */
  readonly id: string;
  readonly endsAt: number;
}

/** The UTC day and month that `now` falls in. */
export function windowsAt(now: number): { readonly day: WindowSpan; readonly month: WindowSpan } {
  const d = new Date(now);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const month = `${y}-${String(m + 1).padStart(2, '0')}`;
  return {
    day: {
      window: 'day',
      id: `${month}-${String(d.getUTCDate()).padStart(2, '0')}`,
      endsAt: Date.UTC(y, m, d.getUTCDate() + 1),
    },
    month: { window: 'month', id: month, endsAt: Date.UTC(y, m + 1, 1) },
  };
}

/** The budget that applies to `tenant`, or undefined when it is not limited. */
export function budgetOf(
  options: Pick<TenantBudgetOptions, 'default' | 'tenants'>,
  tenant: string,
): TenantBudget | undefined {
  const own = options.tenants && Object.hasOwn(options.tenants, tenant) ? options.tenants[tenant] : undefined;
  return own ?? options.default;
}

/** A spent window: which, which limit, how much was used of how much. */
export type SpentWindow = TenantWindowSpent;

/** The first spent window of `budget` given the totals read, or undefined when every window has room. */
export function spentWindow(
  tenant: string,
  budget: TenantBudget,
  spans: { readonly day: WindowSpan; readonly month: WindowSpan },
  totals: { readonly day: { tokens: number; costUsd: number }; readonly month: { tokens: number; costUsd: number } },
): SpentWindow | undefined {
  for (const window of ['day', 'month'] as const) {
    const limit = window === 'day' ? budget.perDay : budget.perMonth;
    if (!limit) continue;
    const used = totals[window];
    const id = spans[window].id;
    if (limit.maxTokens !== undefined && used.tokens >= limit.maxTokens)
      return { tenant, window, id, limit: 'tokens', used: used.tokens, max: limit.maxTokens };
    if (limit.maxCostUsd !== undefined && used.costUsd >= limit.maxCostUsd)
      return { tenant, window, id, limit: 'cost', used: Math.round(used.costUsd * 1e9) / 1e9, max: limit.maxCostUsd };
  }
  return undefined;
}

/** The first window of `budget` at `at` (0.9: 90%) of a limit, or undefined. */
export function nearWindow(
  tenant: string,
  budget: TenantBudget,
  spans: Parameters<typeof spentWindow>[2],
  totals: Parameters<typeof spentWindow>[3],
  at: number,
): SpentWindow | undefined {
  const scaled = (limit: WindowLimit | undefined): WindowLimit | undefined =>
    limit && {
      ...(limit.maxTokens !== undefined && { maxTokens: at * limit.maxTokens }),
      ...(limit.maxCostUsd !== undefined && { maxCostUsd: at * limit.maxCostUsd }),
    };
  const found = spentWindow(
    tenant,
    { perDay: scaled(budget.perDay), perMonth: scaled(budget.perMonth) } as TenantBudget,
    spans,
    totals,
  );
  if (!found) return undefined;
  const limit = found.window === 'day' ? budget.perDay! : budget.perMonth!;
  return { ...found, max: found.limit === 'tokens' ? limit.maxTokens! : limit.maxCostUsd! };
}

/** What a run ending at a spent window says. */
export const spentText = (spent: SpentWindow): string => tenantWindowText(spent);

// KEYS: the day's hash, the month's hash. Returns { dayTokens, dayCost, monthTokens, monthCost } as strings.
const READ = `
local d = redis.call('HMGET', KEYS[1], 'tokens', 'cost')
local m = redis.call('HMGET', KEYS[2], 'tokens', 'cost')
return { d[1] or '0', d[2] or '0', m[1] or '0', m[2] or '0' }
`;

// KEYS: the day's hash, the month's hash. ARGV: tokens, cost, day TTL (s), month TTL (s).
// TTLs, not absolute times: the expiry counts on Redis's own clock, whatever clock the worker has.
const CHARGE = `
local tokens = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
for i = 1, 2 do
  if tokens > 0 then redis.call('HINCRBY', KEYS[i], 'tokens', tokens) end
  if cost > 0 then redis.call('HINCRBYFLOAT', KEYS[i], 'cost', ARGV[2]) end
  redis.call('EXPIRE', KEYS[i], tonumber(ARGV[2 + i]))
end
return 1
`;

/** The answer before a call: go (and charge the usage after it), or a spent window. */
export type TenantAdmission =
  | { readonly go: true; readonly near?: SpentWindow; charge(usage?: CallUsage): Promise<void> }
  | { readonly go: false; readonly spent: SpentWindow };

/** What a person allowed a run past a spent window (a budget request extended), still unused. */
export interface TenantAllowance {
  readonly tokens: number;
  readonly costUsd: number;
}

export interface TenantBudgets {
  /** Asks before a call of `tenant`'s run; a spent window the run's `allowance` covers lets the call go (and charged). */
  admit(tenant: string | undefined, allowance?: TenantAllowance): Promise<TenantAdmission>;
  connect(): void;
  close(): Promise<void>;
}

const UNCHECKED: TenantAdmission = { go: true, charge: async () => {} };

/** Keys outlive their window by a day, for reading after it ends. */
const KEEP_AFTER_S = 86_400;

/** Tenant budgets over Redis (see the file's comment). One per worker; `close()` when it stops. `now` is for tests. */
export function redisTenantBudgets(options: TenantBudgetOptions, now: () => number = Date.now): TenantBudgets {
  const prefix = options.keyPrefix ?? 'cairn:tenant:';
  const timeoutMs = Math.max(1, options.timeoutMs ?? 1_000);
  const connection = redisConnection<RedisClient>({
    url: options.url ?? 'redis://127.0.0.1:6379',
    timeoutMs,
    firstConnectMs: FIRST_CONNECT_MS,
    log: options.log ?? ((message: string) => console.warn(message)),
    downLine: (why) =>
      `cairn: per-tenant model budgets are off until Redis is reachable (${why}); calls go to the provider unchecked and are not counted.`,
    backLine: 'cairn: Redis is reachable again; per-tenant model budgets are back on.',
  });
  const redis = {
    connect: () => connection.open(),
    close: () => connection.close(),
    /** Runs a Lua script; undefined when Redis is unreachable or failed it. */
    async eval(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown> {
      const client = await connection.ready();
      if (!client) return undefined;
      return connection.send(client, () => client.sendCommand(['EVAL', script, String(keys.length), ...keys, ...args]));
    },
  };
  return {
    connect: () => redis.connect(),
    close: () => redis.close(),
    async admit(tenant, allowance) {
      if (tenant === undefined) return UNCHECKED;
      const budget = budgetOf(options, tenant);
      if (!budget || (!budget.perDay && !budget.perMonth)) return UNCHECKED;
      const spans = windowsAt(now());
      const keys = [`${prefix}${tenant}:day:${spans.day.id}`, `${prefix}${tenant}:month:${spans.month.id}`];
      const answer = await redis.eval(READ, keys, []);
      if (answer === undefined) return UNCHECKED;
      const [dt, dc, mt, mc] = (Array.isArray(answer) ? answer : []).map((v) => Number(v) || 0);
      const totals = { day: { tokens: dt ?? 0, costUsd: dc ?? 0 }, month: { tokens: mt ?? 0, costUsd: mc ?? 0 } };
      const spent = spentWindow(tenant, budget, spans, totals);
      const allowed = spent && allowance && (spent.limit === 'tokens' ? allowance.tokens > 0 : allowance.costUsd > 0);
      if (spent && !allowed) return { go: false, spent };
      const at = options.wrapUpAt ?? 0.9;
      const near = spent ?? (at < 1 ? nearWindow(tenant, budget, spans, totals, at) : undefined);
      return {
        go: true,
        ...(near && { near }),
        async charge(usage?: CallUsage) {
          const tokens = Math.max(0, Math.round((usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0)));
          const cost = Math.max(0, usage?.costUsd ?? 0);
          if (tokens === 0 && cost === 0) return;
          const at = now();
          const ttl = (span: WindowSpan) => String(Math.max(1, Math.ceil((span.endsAt - at) / 1000)) + KEEP_AFTER_S);
          await redis.eval(CHARGE, keys, [String(tokens), cost.toFixed(9), ttl(spans.day), ttl(spans.month)]);
        },
      };
    },
  };
}
