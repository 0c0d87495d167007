/**
 * A lazily opened node-redis connection for worker-side checks that must never hold a call up:
 * every script runs with a timeout, and when Redis is unreachable (or the `redis` package is
 * missing) `eval` answers undefined at once, said once in the log and again when Redis is back.
 * Worker side only.
 */

interface RedisClient {
  readonly isReady: boolean;
  sendCommand(args: string[]): Promise<unknown>;
  connect(): Promise<unknown>;
  on(event: 'error' | 'ready', listener: (...args: unknown[]) => void): unknown;
  unref(): void;
  close(): Promise<void>;
  destroy(): void;
}

export interface RedisConnectionOptions {
  readonly url?: string | undefined;
  readonly timeoutMs?: number | undefined;
  readonly log?: ((message: string) => void) | undefined;
  /** What is off while Redis is unreachable, for the log (`per-tenant model budgets`). */
  readonly what: string;
  /** What happens meanwhile, for the log. */
  readonly off: string;
}

export interface RedisConnection {
  connect(): void;
  /** Runs a Lua script; undefined when Redis is unreachable or did not answer in time. */
  eval(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  close(): Promise<void>;
}

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};

/** How long calls wait for the first connection to Redis before they go unchecked. */
const FIRST_CONNECT_MS = 5_000;

export function redisConnection(options: RedisConnectionOptions): RedisConnection {
  const url = options.url ?? 'redis://127.0.0.1:6379';
  const timeoutMs = Math.max(1, options.timeoutMs ?? 1_000);
  const log = options.log ?? ((message: string) => console.warn(message));
  let down = false;
  const fell = (why: string) => {
    if (!down) log(`cairn: ${options.what} are off until Redis is reachable (${why}); ${options.off}.`);
    down = true;
  };
  let owned: Promise<RedisClient | undefined> | undefined;
  let firstConnect: Promise<unknown> | undefined;
  const connection = (): Promise<RedisClient | undefined> =>
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
        socket: { connectTimeout: timeoutMs, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5_000) },
      }) as RedisClient;
      client.on('error', (err) => fell(err instanceof Error ? err.message : String(err)));
      client.on('ready', () => {
        if (down) log(`cairn: Redis is reachable again; ${options.what} are back on.`);
        down = false;
      });
      firstConnect = client.connect().catch(() => {});
      client.unref();
      return client;
    })());
  let firstWait: Promise<void> | undefined;
  const ready = async (): Promise<RedisClient | undefined> => {
    const client = await connection();
    if (!client || client.isReady) return client;
    await (firstWait ??= withTimeout(firstConnect!, Math.max(timeoutMs, FIRST_CONNECT_MS)).then(
      () => {},
      () => {},
    ));
    return client.isReady ? client : (fell('not connected'), undefined);
  };
  return {
    connect() {
      void connection();
    },
    async eval(script, keys, args) {
      const client = await ready();
      if (!client) return undefined;
      try {
        return await withTimeout(client.sendCommand(['EVAL', script, String(keys.length), ...keys, ...args]), timeoutMs);
      } catch (err) {
        fell(err instanceof Error ? err.message : String(err));
        return undefined;
      }
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
