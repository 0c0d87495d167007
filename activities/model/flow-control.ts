/**
 * Flow control per model provider across a fleet of workers: requests per minute, tokens per
 * minute and calls in flight, kept in Redis (one Lua script per check, atomic, Redis's own clock)
 * and checked before a call is sent. A call that would be refused is not sent: the model activity
 * returns a `throttled` outcome with the wait, and the workflow sleeps on a durable timer (no
 * activity slot held) before asking again.
 *
 * Requests are paced by GCRA, and the calls held back wait in a queue in Redis, in the order they
 * first asked (keyed by the run and its model turn, so a call keeps its place across its returns):
 * a call far back is told to come back when the calls ahead of it will have gone, at the pace; the
 * first few seconds' worth of the queue may take the next free slot, whichever of them is here
 * first (a newcomer waits its turn behind them all). So a call that comes back late (a busy
 * worker's timer) loses no slot to a newcomer and leaves none unused — the slot goes to the next
 * held call that is here, and the late one still goes before anybody behind it; waits follow the
 * queue, not growing timers. A held call that does not
 * come back (its run ended) gives up its place 30 s after it was due. Tokens are charged after
 * each call with the provider's usage: while the minute's tokens are spent, new calls wait until
 * they are paid back. Calls in flight are leases that expire on their own if a worker dies.

 * Redis unreachable (or the `redis` package missing): calls go to the provider unchecked (its 429s
 * are then waited out by the workflow), said once in the log, and again when Redis is back. A slow
 * answer on a live connection (a busy worker) is waited for, not taken for Redis being away: going
 * unchecked then sent bursts the provider refused.
 * Worker side only.
 */
import { randomUUID } from 'node:crypto';
import type { CallUsage } from '../../shared/model/model-usage.js';
import { redisConnection, type OwnedRedisClient } from '../redis-connection.js';

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
  /**
   * How long a Redis check may take before the call goes unchecked when the connection is down, in
   * ms; default 1,000. On a connection that is up, a slower answer is waited for (up to 10 s).
   */
  readonly timeoutMs?: number;
  /** Told once when Redis is unreachable, and when it is back; default `console.warn`. */
  readonly log?: (message: string) => void;
}

/** The limiter's answer: go (and release the permit after the call), or wait this long first. */
export type Admission =
  | { readonly go: true; release(usage?: CallUsage): Promise<void> }
  | {
      readonly go: false;
      readonly waitMs: number;
      /** `queued`: behind other held calls, in order; `requests`: first in line, the next slot is this far. */
      readonly why: 'requests' | 'queued' | 'tokens' | 'in_flight';
    };

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

// KEYS: request pace, token pace, in-flight leases, the queue (ticket → reservation), when each queued call
// is due back (reservation → ms), the ticket counter.
// ARGV: ms per request, burst, ms per token, token burst in ms, max in flight, lease ms, lease id, reservation,
// window, grace ms, '1' for a call whose permit came back too late to use: it goes to the head of the queue.
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
local member = ARGV[8]
local window = tonumber(ARGV[9])
local grace = tonumber(ARGV[10])
local known = redis.call('HEXISTS', KEYS[5], member) == 1
if perToken > 0 then
  local ttat = tonumber(redis.call('GET', KEYS[2]) or '0')
  if ttat - tokenBurst > now then return { 0, ttat - tokenBurst - now, 'tokens' } end
end
-- A call told to wait keeps its place: it is due back by then (and forgotten if it is not, plus grace).
local function wait(ms, why)
  redis.call('HSET', KEYS[5], member, now + ms + grace)
  redis.call('PEXPIRE', KEYS[5], 600000)
  return { 0, ms, why }
end
if interval > 0 then
  if ARGV[11] == '1' then
    -- The permit it was given came too late to use: its slot is past (lost to the stall), it asks again first in line.
    local first = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
    redis.call('ZADD', KEYS[4], (tonumber(first[2]) or 0) - 1, member)
    known = true
  elseif not redis.call('ZSCORE', KEYS[4], member) then
    redis.call('ZADD', KEYS[4], redis.call('INCR', KEYS[6]), member)
  end
  redis.call('PEXPIRE', KEYS[4], 600000)
  redis.call('PEXPIRE', KEYS[6], 600000)
  -- Calls near the head that did not come back when due (their run ended, or went elsewhere) give up their place.
  local head = redis.call('ZRANGE', KEYS[4], 0, window - 1)
  local dues = redis.call('HMGET', KEYS[5], unpack(head))
  for i, m in ipairs(head) do
    local due = tonumber(dues[i])
    if m ~= member and due and due < now then
      redis.call('ZREM', KEYS[4], m)
      redis.call('HDEL', KEYS[5], m)
    end
  end
  local rank = redis.call('ZRANK', KEYS[4], member)
  -- Behind the window: back when the calls ahead of it have gone, at the pace.
  if rank >= window then return wait((rank - window + 1) * interval, 'queued') end
  -- A newcomer goes behind the calls already waiting, never ahead of them.
  if rank > 0 and not known then return wait(rank * interval, 'queued') end
  -- In the window: the next free slot goes to the first of these calls that is here to take it.
  local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
  if tat < now then tat = now end
  local at = tat - (burst - 1) * interval
  if at > now then return wait(at - now, 'requests') end
  if maxIn > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
    if redis.call('ZCARD', KEYS[3]) >= maxIn then return wait(0, 'in_flight') end
  end
  redis.call('SET', KEYS[1], tat + interval, 'PX', math.floor(tat + interval - now + 60000))
  redis.call('ZREM', KEYS[4], member)
  redis.call('HDEL', KEYS[5], member)
elseif maxIn > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if redis.call('ZCARD', KEYS[3]) >= maxIn then return { 0, 0, 'in_flight' } end
end
if maxIn > 0 then
  redis.call('ZADD', KEYS[3], now + leaseMs, ARGV[7])
  redis.call('PEXPIRE', KEYS[3], leaseMs + 60000)
end
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

/** The head of the queue whose calls may take a free slot, in ms of pace (see the window above). */
const WINDOW_MS = 4_000;

/** How long past the time it was told a held call keeps its place in the queue. */
const GRACE_MS = 30_000;

/** The longest a call may hold an in-flight lease: a worker that died mid-call frees its slot after this. */
const LEASE_MS = 180_000;

/**
 * A permit whose answer took longer than this to reach the worker (its event loop stalled: a busy
 * machine) is not used: the slot was the moment Redis gave it, and the permits of a stall sent at
 * once reach the provider bunched, past its limit. The slot is past (the stall lost it either way);
 * the call asks again at the head of the queue and goes at the pace from now.
 */
const STALE_PERMIT_MS = 400;

/** How long calls wait for the first connection to Redis before they go unchecked. */
const FIRST_CONNECT_MS = 5_000;

const UNCHECKED: Admission = { go: true, release: async () => {} };

const isGo = (answer: unknown) => Array.isArray(answer) && Number(answer[0]) === 1;

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
      const keys = [
        `${base}:rpm`,
        `${base}:tpm`,
        `${base}:inflight`,
        `${base}:queue`,
        `${base}:due`,
        `${base}:tickets`,
      ];
      const burst = Math.max(1, limit.burst ?? 1);
      /** Gives back the call's in-flight lease and charges the tokens it used. */
      const release = async (tokens: number) => {
        if (perToken === 0 && !limit.inFlight) return;
        await redis.send(client, () =>
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
        );
      };
      // The calls that may take a free slot: the first few seconds' worth of the queue, so that calls back late from
      // their timers (a busy worker) find others here to keep the provider busy, and still go next when they come.
      const window = interval > 0 ? Math.max(burst, Math.ceil(WINDOW_MS / interval)) : 0;
      const ask = (front: boolean) => {
        const args = [
          interval,
          burst,
          perToken,
          perToken > 0 ? 60_000 : 0,
          limit.inFlight ?? 0,
          LEASE_MS,
          lease,
          reservation,
          window,
          GRACE_MS,
          front ? 1 : 0,
        ].map(String);
        return redis.send(client, () => client.sendCommand(['EVAL', ADMIT, String(keys.length), ...keys, ...args]));
      };
      const asked = performance.now();
      let answer = await ask(false);
      if (answer === undefined) return UNCHECKED;
      if (isGo(answer) && performance.now() - asked > STALE_PERMIT_MS) {
        // Too late to use (see STALE_PERMIT_MS): its lease back, and asked again first in line.
        if (limit.inFlight) await release(0);
        answer = await ask(true);
        if (answer === undefined) return UNCHECKED;
      }
      const [go, wait, why] = Array.isArray(answer) ? answer : [1, 0, ''];
      if (Number(go) !== 1) {
        const waitMs =
          why === 'in_flight'
            ? IN_FLIGHT_WAIT_MS + Math.floor(Math.random() * 400)
            : Math.max(1, Math.ceil(Number(wait)));
        return {
          go: false,
          waitMs,
          why: why === 'tokens' || why === 'in_flight' || why === 'queued' ? why : 'requests',
        };
      }
      return {
        go: true,
        release: (usage?: CallUsage) => release((usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0)),
      };
    },
    close: () => redis.close(),
  };
}
