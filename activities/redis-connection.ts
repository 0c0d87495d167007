/**
 * One lazily opened Redis connection a worker part owns (model flow control, live deltas): the
 * optional `redis` package loaded on first use, bounded waits, and one log line when Redis goes
 * away and one when it is back, never a crash. The part decides what "away" means for it (calls go
 * unchecked, deltas are dropped). Node-only; not for workflows.
 */
import { withTimeout as withAnyTimeout } from './with-timeout.js';

/** What a part may call on a node-redis client (`createClient()` of `redis` 6), beyond its own commands. */
export interface OwnedRedisClient {
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  on(event: 'error' | 'ready', listener: (...args: unknown[]) => void): unknown;
  unref(): void;
  close(): Promise<void>;
  destroy(): void;
}

export interface RedisConnectionOptions {
  readonly url: string;
  /** Each command's and the connect's bound. */
  readonly timeoutMs: number;
  /** How long the first use waits for the first connect (at least `timeoutMs`). */
  readonly firstConnectMs?: number;
  readonly log: (message: string) => void;
  /** The line logged once when Redis becomes unreachable, given why. */
  readonly downLine: (why: string) => string;
  /** The line logged when it is reachable again. */
  readonly backLine: string;
}

export interface RedisConnection<C extends OwnedRedisClient> {
  /** Opens the connection now (it is otherwise opened on first use). */
  open(): void;
  /** The client when it is ready; undefined (and logged once) while Redis is unreachable. The first call waits for the first connect, bounded. */
  ready(): Promise<C | undefined>;
  /**
   * Sends a command and gives its answer, or undefined (recorded with `fell`) when Redis failed it.
   * An answer slower than `timeoutMs` on a connection that is still up is waited for, up to
   * SLOW_ANSWER_MS: the command was sent and Redis will run it, so its answer is the truth (a busy
   * worker's event loop, not Redis, is what is usually late), and going on without it would act
   * as though Redis were away while it is not.
   */
  send<T>(client: C, command: () => Promise<T>): Promise<T | undefined>;
  /** Records that Redis failed a command (logged once until it is back). */
  fell(why: string): void;
  /** Records that Redis answered a command: after a failure, that is "back" (logged once). */
  answered(): void;
  /**
   * Redis is known to be unreachable. A command that failed on a connection that stayed up (a
   * timeout on a busy machine) counts for RETRY_AFTER_MS: then the part tries again, and its
   * first answer logs "back" (the connection's own `ready` never comes, as it never dropped).
   */
  readonly down: boolean;
  close(): Promise<void>;
}

/** `promise`, or a rejection saying Redis did not answer within `ms`. */
export const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  withAnyTimeout(promise, ms, `Redis did not answer within ${ms} ms`);

/** The longest a command's answer is waited for while its connection is up. */
export const SLOW_ANSWER_MS = 10_000;

/** How long a command's failure on a connection that stayed up keeps a part off Redis before it tries again. */
export const RETRY_AFTER_MS = 5_000;

export function redisConnection<C extends OwnedRedisClient>(
  options: RedisConnectionOptions,
  now: () => number = Date.now,
): RedisConnection<C> {
  const { url, timeoutMs, log } = options;
  let down = false;
  let downSince = 0;
  let current: C | undefined;
  const fell = (why: string) => {
    if (!down) log(options.downLine(why));
    // Each failure starts the wait again: a Redis that stays slow is tried every RETRY_AFTER_MS, not on every call.
    downSince = now();
    down = true;
  };
  const answered = () => {
    if (down) log(options.backLine);
    down = false;
  };
  let owned: Promise<C | undefined> | undefined;
  let firstConnect: Promise<unknown> | undefined;
  const connection = (): Promise<C | undefined> =>
    (owned ??= (async () => {
      let redis: { createClient(options: object): unknown };
      try {
        redis = (await import('redis')) as unknown as typeof redis;
      } catch {
        fell('the `redis` package is not installed: npm install redis');
        return undefined;
      }
      const client = redis.createClient({
        url,
        disableOfflineQueue: true,
        socket: {
          connectTimeout: timeoutMs,
          reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5_000),
        },
      }) as C;
      client.on('error', (err) => fell(err instanceof Error ? err.message : String(err)));
      client.on('ready', answered);
      current = client;
      firstConnect = client.connect().catch(() => {});
      // The connection never keeps the worker's process alive.
      client.unref();
      return client;
    })());
  // Only the first connect is waited on; after it, a connection that is not ready answers at once.
  let firstWait: Promise<void> | undefined;
  return {
    open: () => void connection(),
    async ready() {
      const client = await connection();
      if (!client || client.isReady) return client;
      await (firstWait ??= withTimeout(firstConnect!, Math.max(timeoutMs, options.firstConnectMs ?? 0)).then(
        () => {},
        () => {},
      ));
      return client.isReady ? client : (fell('not connected'), undefined);
    },
    async send(client, command) {
      const sent = command();
      try {
        const answer = await withTimeout(sent, timeoutMs).catch((err: unknown) => {
          if (!client.isReady) throw err;
          return withTimeout(sent, Math.max(0, SLOW_ANSWER_MS - timeoutMs));
        });
        answered();
        return answer;
      } catch (err) {
        sent.catch(() => {});
        fell(err instanceof Error ? err.message : String(err));
        return undefined;
      }
    },
    fell,
    answered,
    get down() {
      return down && !(current?.isReady === true && now() - downSince >= RETRY_AFTER_MS);
    },
    async close() {
      const client = await owned;
      owned = undefined;
      if (!client) return;
      try {
        await withTimeout(client.close(), timeoutMs);
      } catch {
        try {
          client.destroy();
        } catch {
          // already closed
        }
      }
    },
  };
}
