import { describe, expect, it } from 'vitest';
import { redisConnection, RETRY_AFTER_MS, type OwnedRedisClient } from './redis-connection.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe.skipIf(process.env.CAIRN_NO_REDIS === '1')('a Redis connection a worker part owns', () => {
  it('a command that timed out on a live connection: off once, tried again after a while, back on once at its first answer', async () => {
    const said: string[] = [];
    let now = 0;
    const connection = redisConnection<OwnedRedisClient>(
      {
        url,
        timeoutMs: 1_000,
        log: (line) => said.push(line),
        downLine: (why) => `off (${why})`,
        backLine: 'back on',
      },
      () => now,
    );
    try {
      const client = await connection.ready();
      if (!client) return void console.warn(`redis-connection test skipped: ${said[0]}`);
      // A busy machine: one command did not answer in time, the connection itself never dropped.
      connection.fell('Redis did not answer within 1000 ms');
      connection.fell('Redis did not answer within 1000 ms');
      expect(said).toEqual(['off (Redis did not answer within 1000 ms)']);
      expect(connection.down).toBe(true);
      // A while after the last failure the part tries again (the connection is up) …
      now += RETRY_AFTER_MS - 1;
      connection.fell('Redis did not answer within 1000 ms'); // still slow: the wait starts again
      now += RETRY_AFTER_MS - 1;
      expect(connection.down).toBe(true);
      now += 1;
      expect(connection.down).toBe(false);
      // … and its first answer says so, once.
      connection.answered();
      connection.answered();
      expect(said).toEqual(['off (Redis did not answer within 1000 ms)', 'back on']);
      // Answers while up say nothing.
      connection.answered();
      expect(said).toHaveLength(2);
    } finally {
      await connection.close();
    }
  });

  it('a slow answer on a live connection is waited for and taken, not counted as Redis away', async () => {
    const said: string[] = [];
    const connection = redisConnection<OwnedRedisClient & { sendCommand(args: string[]): Promise<unknown> }>({
      url,
      timeoutMs: 100,
      log: (line) => said.push(line),
      downLine: (why) => `off (${why})`,
      backLine: 'back on',
    });
    try {
      const client = await connection.ready();
      if (!client) return void console.warn(`redis-connection test skipped: ${said[0]}`);
      // BLPOP on an empty list answers (nil) after 0.4 s: four times the bound, Redis itself never away.
      const key = `cairn:test:slow:${process.pid}:${Math.random()}`;
      const answer = await connection.send(client, () => client.sendCommand(['BLPOP', key, '0.4']));
      expect(answer).toBeNull();
      expect(said).toEqual([]);
      expect(connection.down).toBe(false);
    } finally {
      await connection.close();
    }
  });
});
