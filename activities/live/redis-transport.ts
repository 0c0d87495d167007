/**
 * The ephemeral transport: a model call's live deltas go to Redis and write no history. Each
 * batch of live events is appended (XADD, one entry per event, trimmed `MAXLEN ~`) to one Redis
 * Stream per workflow id, whose key expires a while after the last write (EXPIRE, renewed on every
 * batch); readers follow it with client/redis-live-source.ts.
 *
 * A Stream, not pub/sub: pub/sub delivers only to whoever is subscribed at the moment of PUBLISH,
 * so a reader that connects a moment after the turn started, or reconnects (a browser's SSE
 * retry), would miss the start of the turn and show broken text. A Stream keeps the entries, each
 * with an id a reader resumes from (`from`), and XREAD BLOCK gives the same push latency. The trim
 * and the expiry keep it a preview buffer, not a store: the turn's recorded reply is the truth.
 *
 * Redis being down never fails a model call: writes wait at most `timeoutMs`, commands fail at once
 * while the connection is down (no offline queue), and a failed batch is dropped; the client
 * reconnects in the background. `redis` (node-redis) is an optional peer dependency, loaded at the
 * first model call that streams. Worker side only.
 */
import { REDIS_LIVE_FIELD, REDIS_LIVE_PREFIX, redisLiveKey } from '../../shared/live/redis-live-stream.js';
import type { ModelDelta } from '../../shared/live/model-delta.js';
import { batcher, liveEventsOf, type DeltaTransport, type LiveCall } from './delta-transport.js';
import { redisConnection, withTimeout, type OwnedRedisClient } from '../redis-connection.js';

/** What the transport calls on a node-redis client (`createClient()` of `redis` 6), so Cairn's types name none of `redis`. */
export interface RedisWriter {
  readonly isReady: boolean;
  multi(): RedisWriteBatch;
}
export interface RedisWriteBatch {
  xAdd(
    key: string,
    id: string,
    message: Record<string, string>,
    options?: { TRIM?: { strategy: 'MAXLEN'; strategyModifier?: '~' | '='; threshold: number } },
  ): RedisWriteBatch;
  expire(key: string, seconds: number): RedisWriteBatch;
  exec(): Promise<unknown>;
}

export interface RedisTransportOptions {
  /** The Redis to write to (`redis://host:6379`, `rediss://…` for TLS); the transport connects on first use and owns the connection. */
  readonly url?: string;
  /** Or a node-redis client you connected and close yourself (then `url` is not used). */
  readonly client?: RedisWriter;
  /** Key prefix; a run's stream is `<prefix><workflowId>`. Default `cairn:live:`; readers must use the same. */
  readonly keyPrefix?: string;
  /** Entries a stream keeps at least (trimmed approximately, `MAXLEN ~`); default 1,000. */
  readonly maxLen?: number;
  /** Seconds a stream lives after its last write; default 600. */
  readonly ttlSeconds?: number;
  /** Deltas gathered before a write, in ms (the first one goes at once); default 50. */
  readonly batchIntervalMs?: number;
  /** Characters of text and arguments per event, and per write before it goes early; default 4,000. */
  readonly maxBatchChars?: number;
  /** The longest a write (or the first connect) may take before its batch is dropped, in ms; default 2,000. */
  readonly timeoutMs?: number;
  /** Told when Redis becomes unreachable (deltas dropped) and when it is back; default `console.warn`. */
  readonly log?: (message: string) => void;
}

/**
 * The ephemeral transport. `close()` lets go of the connection it opened (the worker calls it when
 * it stops); a later model call opens a new one, so workers may share one transport.
 */
export interface RedisTransport extends DeltaTransport {
  close(): Promise<void>;
}

/** What a connection the transport opened looks like to it. */
interface OwnedClient extends RedisWriter, OwnedRedisClient {}

/**
 * Live deltas through Redis Streams, writing no history: pass it as `modelActivity.streaming` of
 * `createCairnWorker`. Readers use `redisLiveSource` (cairn-agents/client) with the same
 * `keyPrefix`. Needs the `redis` package installed beside cairn-agents.
 */
export function redisTransport(options: RedisTransportOptions): RedisTransport {
  if (!options.client && !options.url) throw new Error('redisTransport needs `url` or `client`.');
  const prefix = options.keyPrefix ?? REDIS_LIVE_PREFIX;
  const maxLen = Math.max(1, options.maxLen ?? 1_000);
  const ttl = Math.max(1, Math.round(options.ttlSeconds ?? 600));
  const maxChars = Math.max(1, options.maxBatchChars ?? 4_000);
  const timeoutMs = Math.max(1, options.timeoutMs ?? 2_000);
  const log = options.log ?? ((message: string) => console.warn(message));
  const redis = redisConnection<OwnedClient>({
    url: options.url ?? '',
    timeoutMs,
    log,
    downLine: (why) => `cairn: live deltas to Redis are dropped until it is reachable (${why}).`,
    backLine: 'cairn: Redis is reachable again; live deltas go on.',
  });
  // A client of the caller's is used as it is; one of the transport's own is used once ready.
  const writer = async (): Promise<RedisWriter | undefined> => {
    if (!options.client) return redis.ready();
    if (!options.client.isReady) return void redis.fell('not connected');
    return options.client;
  };

  return {
    name: 'redis',
    open(call: LiveCall) {
      const key = redisLiveKey(prefix, call.workflowId);
      const eventsOf = liveEventsOf(call, maxChars);
      const send = async (deltas: ModelDelta[]) => {
        // Numbered even when dropped: `seq` gaps tell a reader deltas were lost.
        const events = eventsOf(deltas);
        const client = await writer();
        if (!client) return;
        const batch = client.multi();
        for (const event of events)
          batch.xAdd(
            key,
            '*',
            { [REDIS_LIVE_FIELD]: JSON.stringify(event) },
            { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: maxLen } },
          );
        batch.expire(key, ttl);
        try {
          await withTimeout(batch.exec(), timeoutMs);
          redis.answered();
        } catch (err) {
          redis.fell(err instanceof Error ? err.message : String(err));
        }
      };
      return batcher(send, options.batchIntervalMs ?? 50, maxChars);
    },
    close: () => redis.close(),
  };
}
