/**
 * The reader side of the ephemeral transport (activities/live/redis-transport.ts): a run's live
 * deltas as they land in its Redis Stream, followed with XREAD BLOCK from a position, so a reader
 * that connects late or reconnects gets what the stream still keeps of the turn. Each
 * subscription holds its own connection (a blocking read occupies one). Entries are checked
 * before they are handed on; ones that are not live events are skipped. Redis going away pauses a
 * subscription (it retries from where it was) and never ends it: only its signal does.
 * Node-only (client side); `redis` (node-redis) is an optional peer dependency, loaded at the
 * first subscription.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseLiveEntry, REDIS_LIVE_FIELD, REDIS_LIVE_PREFIX, redisLiveKey } from '../shared/live/redis-live-stream.js';
import type { LiveEvent } from '../shared/live/model-delta.js';

/** A live event and its entry id in the run's stream: pass the last one seen as `from` to resume after it. */
export type RedisLiveEvent = LiveEvent & { readonly id: string };

export interface RedisSubscribeOptions {
  /** Ends the subscription (quietly: the iteration just ends). Without one it goes on until you stop iterating. */
  readonly signal?: AbortSignal;
  /** Resume after this entry id (a `RedisLiveEvent`'s `id`). Default `0`: all the stream keeps; `$`: only what comes next. */
  readonly from?: string;
}

export interface RedisLiveSourceOptions {
  /** The Redis the worker's `redisTransport` writes to. */
  readonly url?: string;
  /** Or a node-redis client you connected and close yourself: each subscription reads on a `duplicate()` of it. */
  readonly client?: RedisReaderClient;
  /** The transport's key prefix; default `cairn:live:`. */
  readonly keyPrefix?: string;
  /** How long one XREAD blocks before it asks again, in ms; default 5,000. */
  readonly blockMs?: number;
  /** Entries one read returns at most; default 256. */
  readonly count?: number;
}

/** Where live events come from, for `mergeLive`, the HTTP handler, or your own loop. */
export interface LiveSource {
  /** A workflow's live events as they arrive, from `from` on; ends when `signal` aborts. */
  subscribe(workflowId: string, options?: RedisSubscribeOptions): AsyncIterable<RedisLiveEvent>;
  /**
   * Where the workflow's live events stand now: the id of its newest entry (`0-0` when it has
   * none). `subscribe` from it reads only what is written after this moment, which `$` (resolved
   * when the first read reaches Redis) does not promise. Without it readers use `$`.
   */
  position?(workflowId: string): Promise<string>;
}

type StreamsReply =
  | {
      readonly name: unknown;
      readonly messages: readonly { readonly id: string; readonly message: Record<string, string> }[];
    }[]
  | null;

/** What the source calls on a node-redis client (`createClient()` of `redis` 6), so Cairn's types name none of `redis`. */
export interface RedisReaderClient {
  duplicate(): RedisReaderClient;
  connect(): Promise<unknown>;
  on(event: 'error', listener: (err: unknown) => void): unknown;
  xRead(streams: { key: string; id: string }, options?: { BLOCK?: number; COUNT?: number }): Promise<unknown>;
  xRevRange(key: string, end: string, start: string, options?: { COUNT?: number }): Promise<unknown>;
  unref?(): void;
  destroy(): void;
}

const RETRY_MS = 250;
/** The longest `position` waits for Redis before it gives up (it rejects). */
const POSITION_TIMEOUT_MS = 2_000;

/**
 * Reads the live deltas a worker's `redisTransport` writes, without touching the run's history.
 * Each subscription opens its own connection and closes it when it ends; `position` asks on one
 * more, opened at its first call and unref'd (it never keeps the process alive).
 * Merge them with `run.events()` by `mergeLive` (client/merge-live.ts).
 */
export function redisLiveSource(options: RedisLiveSourceOptions): LiveSource {
  if (!options.client && !options.url) throw new Error('redisLiveSource needs `url` or `client`.');
  const prefix = options.keyPrefix ?? REDIS_LIVE_PREFIX;
  const blockMs = Math.max(1, options.blockMs ?? 5_000);
  const count = Math.max(1, options.count ?? 256);
  // The template subscriptions duplicate; with `url` it is never connected itself.
  let template: Promise<RedisReaderClient> | undefined;
  const base = (): Promise<RedisReaderClient> =>
    (template ??= options.client
      ? Promise.resolve(options.client)
      : import('redis').then(
          (redis) =>
            redis.createClient({
              url: options.url,
              socket: { reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
            }) as unknown as RedisReaderClient,
          () => Promise.reject(new Error('redisLiveSource needs the `redis` package: npm install redis')),
        ));
  // `position` asks on one shared connection (with `url`: opened at its first call, never holding the process).
  let commands: Promise<RedisReaderClient> | undefined;
  const commandClient = (): Promise<RedisReaderClient> =>
    (commands ??= options.client
      ? Promise.resolve(options.client)
      : base().then(async (template) => {
          const client = template.duplicate();
          client.on('error', () => {});
          try {
            await client.connect();
          } catch (err) {
            commands = undefined;
            throw err;
          }
          client.unref?.();
          return client;
        }));

  async function position(workflowId: string): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Redis did not answer within ${POSITION_TIMEOUT_MS} ms.`)),
        POSITION_TIMEOUT_MS,
      );
      timer.unref();
    });
    try {
      const newest = (await Promise.race([
        commandClient().then((c) => c.xRevRange(redisLiveKey(prefix, workflowId), '+', '-', { COUNT: 1 })),
        late,
      ])) as { id: string }[] | null;
      return newest?.[0]?.id ?? '0-0';
    } finally {
      clearTimeout(timer);
    }
  }

  async function* subscribe(
    workflowId: string,
    { signal, from = '0' }: RedisSubscribeOptions = {},
  ): AsyncGenerator<RedisLiveEvent, void> {
    if (signal?.aborted) return;
    const key = redisLiveKey(prefix, workflowId);
    const reader = (await base()).duplicate();
    reader.on('error', () => {}); // a dropped connection reconnects; reads fail meanwhile and are retried
    const stop = () => {
      try {
        reader.destroy();
      } catch {
        // not connected yet, or already gone
      }
    };
    signal?.addEventListener('abort', stop, { once: true });
    let position = from;
    try {
      // connect() settles once connected, or rejects when `stop` destroys the client first.
      await reader.connect();
      while (!signal?.aborted) {
        let reply: StreamsReply;
        try {
          reply = (await reader.xRead({ key, id: position }, { BLOCK: blockMs, COUNT: count })) as StreamsReply;
        } catch {
          if (signal?.aborted) return;
          await sleep(RETRY_MS, undefined, signal ? { signal } : {}).catch(() => {});
          continue;
        }
        for (const { messages } of reply ?? [])
          for (const { id, message } of messages) {
            position = id;
            const event = parseLiveEntry(message[REDIS_LIVE_FIELD] ?? '');
            if (event) yield { ...event, id };
          }
      }
    } catch (err) {
      if (!signal?.aborted) throw err;
    } finally {
      signal?.removeEventListener('abort', stop);
      stop();
    }
  }

  return { subscribe, position };
}
