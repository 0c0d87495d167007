/**
 * A run store on Redis: one string per key, each with a time to live (a transcript message a run
 * still needs after it expired is read from the run by Query). Commands sent together are pipelined
 * by the client. Needs the optional `redis` package. Worker side only.
 */
import type { RunStore } from '../../shared/storage/run-store.js';
import { redisConnection, type OwnedRedisClient } from '../redis-connection.js';
import { shownUrl } from './shown-url.js';

export interface RedisRunStoreOptions {
  /** Default `redis://127.0.0.1:6379`. */
  readonly url?: string;
  /** How long a value is kept. Default 30 days (the other stores' default age). */
  readonly ttlMs?: number;
  /** Each command's bound. Default 5,000 ms. */
  readonly timeoutMs?: number;
  readonly log?: (message: string) => void;
}

interface RedisClient extends OwnedRedisClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** A run store on Redis; `close()` it when its workers have stopped. */
export function redisRunStore(options: RedisRunStoreOptions = {}): RunStore {
  const url = options.url ?? 'redis://127.0.0.1:6379';
  const shown = shownUrl(url);
  const ttl = String(Math.max(1, Math.round(options.ttlMs ?? 30 * 24 * 3_600_000)));
  const redis = redisConnection<RedisClient>({
    url,
    timeoutMs: Math.max(1, options.timeoutMs ?? 5_000),
    log: options.log ?? ((message) => console.warn(message)),
    downLine: (why) => `Cairn: the run store on Redis (${shown}) is unreachable (${why}).`,
    backLine: `Cairn: the run store on Redis (${shown}) is reachable again.`,
  });
  const send = async <T>(command: (client: RedisClient) => Promise<T>): Promise<T> => {
    const client = await redis.ready();
    const answer = client && (await redis.send(client, () => command(client)));
    if (answer === undefined) throw new Error(`The run store on Redis (${shown}) did not answer.`);
    return answer;
  };
  return {
    async put(entries) {
      if (entries.length === 0) return;
      await send((client) =>
        Promise.all(entries.map(([key, value]) => client.sendCommand(['SET', key, value, 'PX', ttl]))),
      );
    },
    async get(keys) {
      if (keys.length === 0) return [];
      const values = (await send((client) => client.sendCommand(['MGET', ...keys]))) as (string | null)[];
      return values.map((value) => value ?? undefined);
    },
    close: () => redis.close(),
  };
}
