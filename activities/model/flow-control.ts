/**
 * Flow control per model provider across a fleet of workers: requests per minute, tokens per
 * minute and calls in flight, kept in Redis (one Lua script per check, atomic, Redis's own clock)
 * and checked before a call is sent. A call that would be refused is not sent: the model activity
 * returns a `throttled` outcome with the wait, and the workflow sleeps on a durable timer (no
 * activity slot held) before asking again.
 *
 * Requests are paced by GCRA with reservations: a call told to wait holds the slot it was given
 * (keyed by the run and its model turn), so on its return it goes at once rather than contending
 * again; the provider sees an even stream at the configured rate. Calls that come back late from
 * their slots (a busy worker) could bunch: no second admits more than the pace's share and one. Tokens are charged after each
 * call with the provider's usage: while the minute's tokens are spent, new calls wait until they
 * are paid back. Calls in flight are leases that expire on their own if a worker dies.
 *
 * Redis unreachable (or the `redis` package missing): calls go to the provider unchecked (its 429s
 * are then waited out by the workflow), said once in the log, and again when Redis is back.
 * Worker side only.
 */
import { randomUUID } from 'node:crypto';
import type { CallUsage } from '../../shared/model/model-usage.js';
import { redisConnection, withTimeout, type OwnedRedisClient } from '../redis-connection.js';

/** Limits for one provider (or one key, or one model). Any may be left out. */
export interface ProviderLimit {
  /** Calls per minute, paced evenly. */
  readonly requestsPerMinute?: number;
  /** Calls allowed at once above the pace (default 1: none). */
  readonly burst?: number;
  /** Tokens in and out per minute, charged after each call with the provider's usage. */
  readonly tokensPerMinute?: number;
  /** Calls in flight at once across the fleet. */
  readonly inFlight?: number;
}

/** The worker's flow control: `models.flowControl` of `createCairnWorker` (docs/operations.md). */
export interface FlowControlOptions {
  /**
   * Limits by model spec (`openai:gpt-4.1-mini`), model name (`gpt-4.1-mini`) or provider prefix
   * (`openai`), the most specific winning. Every worker of the fleet shares the limits of the same key.
   */
  readonly limits: Readonly<Record<string, ProviderLimit>>;
  /** The Redis every worker shares; default `redis://127.0.0.1:6379`. */
  readonly url?: string;
  /** Key prefix in Redis; default `cairn:flow:`. */
  readonly keyPrefix?: string;
  /** The longest a Redis check may take before the call goes unchecked, in ms; default 1,000. */
  readonly timeoutMs?: number;
  /** Told once when Redis is unreachable, and when it is back; default `console.warn`. */
  readonly log?: (message: string) => void;
}

/** The limiter's answer: go (and release the permit after the call), or wait this long first. */
export type Admission =
  | { readonly go: true; release(usage?: CallUsage): Promise<void> }
  | { readonly go: false; readonly waitMs: number; readonly why: 'requests' | 'tokens' | 'in_flight' };

export interface FlowControl {
  /** Asks for a permit to call `spec`; `reservation` names the call across its retries (the run and its model turn). */
  admit(spec: string, reservation: string): Promise<Admission>;
  /** Starts connecting now (the worker does as it starts), so the first calls are checked too. */
  connect(): void;
  /** True when a limit applies to `spec` and Redis is reachable: the fleet's limits pace it. */
  covers(spec: string): boolean;
  close(): Promise<void>;
}

/** The limit that applies to `spec`, and the key it is shared under. */
export function limitFor(
  limits: FlowControlOptions['limits'],
  spec: string,
): { readonly key: string; readonly limit: ProviderLimit } | undefined {
  const at = spec.indexOf(':');
  const name = at < 0 ? spec : spec.slice(at + 1);
  const prefix = at < 0 ? spec : spec.slice(0, at);
  for (const key of [spec, name, prefix]) if (Object.hasOwn(limits, key)) return { key, limit: limits[key]! };
  return undefined;
}

// KEYS: request pace, token pace, in-flight leases, this call's reservation, calls sent in the last second.
// ARGV: ms per request, burst, ms per token, token burst in ms, max in flight, lease ms, lease id, most calls in any second.
// Returns { 1, 0, '' } to go, or { 0, waitMs, why }.
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local perToken = tonumber(ARGV[3])
local tokenBurst = tonumber(ARGV[4])
local maxIn = tonumber(ARGV[5])
local leaseMs = tonumber(ARGV[6])
if perToken > 0 then
  local ttat = tonumber(redis.call('GET', KEYS[2]) or '0')
  if ttat - tokenBurst > now then return { 0, ttat - tokenBurst - now, 'tokens' } end
end
if interval > 0 then
  local reserved = redis.call('GET', KEYS[4])
  if reserved then
    if tonumber(reserved) > now then return { 0, tonumber(reserved) - now, 'requests' } end
  else
    local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
    if tat < now then tat = now end
    local at = tat - (burst - 1) * interval
    if at < now then at = now end
    redis.call('SET', KEYS[1], tat + interval, 'PX', math.floor(tat + interval - now + 60000))
    if at > now then
      redis.call('SET', KEYS[4], at, 'PX', math.floor(at - now + 600000))
      return { 0, at - now, 'requests' }
    end
  end
end
local perSecond = tonumber(ARGV[8])
if perSecond > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - 1000)
  if redis.call('ZCARD', KEYS[5]) >= perSecond then
    local oldest = tonumber(redis.call('ZRANGE', KEYS[5], 0, 0, 'WITHSCORES')[2])
    -- Queued behind the reserved slots (not all at the same moment), once the second has room.
    local at = oldest + 1001
    if interval > 0 then
      local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
      if tat > at then at = tat end
      redis.call('SET', KEYS[1], at + interval, 'PX', math.floor(at + interval - now + 60000))
    end
    redis.call('SET', KEYS[4], at, 'PX', math.floor(at - now + 600000))
    return { 0, at - now, 'requests' }
  end
end
if maxIn > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if redis.call('ZCARD', KEYS[3]) >= maxIn then
    if interval > 0 then redis.call('SET', KEYS[4], now, 'PX', 600000) end
    return { 0, 0, 'in_flight' }
  end
  redis.call('ZADD', KEYS[3], now + leaseMs, ARGV[7])
  redis.call('PEXPIRE', KEYS[3], leaseMs + 60000)
end
if perSecond > 0 then
  redis.call('ZADD', KEYS[5], now, ARGV[7])
  redis.call('PEXPIRE', KEYS[5], 5000)
end
redis.call('DEL', KEYS[4])
return { 1, 0, '' }
`;

// KEYS: token pace, in-flight leases. ARGV: ms per token, tokens used, lease id.
const RELEASE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local perToken = tonumber(ARGV[1])
local tokens = tonumber(ARGV[2])
if perToken > 0 and tokens > 0 then
  local ttat = tonumber(redis.call('GET', KEYS[1]) or '0')
  if ttat < now then ttat = now end
  ttat = ttat + tokens * perToken
  redis.call('SET', KEYS[1], math.floor(ttat), 'PX', math.floor(ttat - now + 120000))
end
redis.call('ZREM', KEYS[2], ARGV[3])
return 1
`;

/** What the limiter calls on a node-redis client (`createClient()` of `redis` 6). */
interface RedisClient extends OwnedRedisClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Calls in flight that cannot get a slot come back after 100–500 ms (spread, so they do not return together). */
const IN_FLIGHT_WAIT_MS = 100;

/** The longest a call may hold an in-flight lease: a worker that died mid-call frees its slot after this. */
const LEASE_MS = 180_000;

/** How long calls wait for the first connection to Redis before they go unchecked. */
const FIRST_CONNECT_MS = 5_000;

const UNCHECKED: Admission = { go: true, release: async () => {} };

/** Flow control over Redis (see the file's comment). One per worker; `close()` when it stops. */
export function redisFlowControl(options: FlowControlOptions): FlowControl {
  const url = options.url ?? 'redis://127.0.0.1:6379';
  const prefix = options.keyPrefix ?? 'cairn:flow:';
  const timeoutMs = Math.max(1, options.timeoutMs ?? 1_000);
  const log = options.log ?? ((message: string) => console.warn(message));
  const redis = redisConnection<RedisClient>({
    url,
    timeoutMs,
    firstConnectMs: FIRST_CONNECT_MS,
    log,
    downLine: (why) =>
      `cairn: model flow control is off until Redis is reachable (${why}); calls go to the provider unchecked, its rate limits are waited out.`,
    backLine: 'cairn: Redis is reachable again; model flow control is back on.',
  });
  const { fell } = redis;
  const ready = () => redis.ready();

  return {
    connect() {
      redis.open();
    },
    covers(spec) {
      return !redis.down && limitFor(options.limits, spec) !== undefined;
    },
    async admit(spec, reservation) {
      const found = limitFor(options.limits, spec);
      if (!found) return UNCHECKED;
      const { key, limit } = found;
      const client = await ready();
      if (!client) return UNCHECKED;
      const base = `${prefix}${key}`;
      const interval = limit.requestsPerMinute ? 60_000 / limit.requestsPerMinute : 0;
      const perToken = limit.tokensPerMinute ? 60_000 / limit.tokensPerMinute : 0;
      const lease = randomUUID();
      const keys = [`${base}:rpm`, `${base}:tpm`, `${base}:inflight`, `${base}:res:${reservation}`, `${base}:sent`];
      const burst = Math.max(1, limit.burst ?? 1);
      // Calls that come back late from their reserved slots must not bunch: no second holds more than its share (providers count per second too).
      // One above the pace's own share, so calls on pace never wait for it; configure limits a little below the provider's.
      const perSecond =
        limit.requestsPerMinute && limit.requestsPerMinute >= 60 ? Math.floor(limit.requestsPerMinute / 60) + burst : 0;
      const args = [
        interval,
        burst,
        perToken,
        perToken > 0 ? 60_000 : 0,
        limit.inFlight ?? 0,
        LEASE_MS,
        lease,
        perSecond,
      ].map(String);
      let answer: unknown;
      try {
        answer = await withTimeout(
          client.sendCommand(['EVAL', ADMIT, String(keys.length), ...keys, ...args]),
          timeoutMs,
        );
      } catch (err) {
        fell(err instanceof Error ? err.message : String(err));
        return UNCHECKED;
      }
      redis.answered();
      const [go, wait, why] = Array.isArray(answer) ? answer : [1, 0, ''];
      if (Number(go) !== 1) {
        const waitMs =
          why === 'in_flight'
            ? IN_FLIGHT_WAIT_MS + Math.floor(Math.random() * 400)
            : Math.max(1, Math.ceil(Number(wait)));
        return { go: false, waitMs, why: why === 'tokens' || why === 'in_flight' ? why : 'requests' };
      }
      return {
        go: true,
        async release(usage?: CallUsage) {
          const tokens = (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
          if (perToken === 0 && !limit.inFlight) return;
          try {
            await withTimeout(
              client.sendCommand([
                'EVAL',
                RELEASE,
                '2',
                `${base}:tpm`,
                `${base}:inflight`,
                String(perToken),
                String(tokens),
                lease,
              ]),
              timeoutMs,
            );
            redis.answered();
          } catch (err) {
            fell(err instanceof Error ? err.message : String(err));
          }
        },
      };
    },
    close: () => redis.close(),
  };
}
