import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import type { RunStore } from '../shared/storage/run-store.js';
import { MemoryRunStore } from '../testing/memory-run-store.js';
import { keepPruned, runStoreFromEnvironment } from './run-store-from-environment.js';

describe('runStoreFromEnvironment', () => {
  it('makes the store CAIRN_RUN_STORE names, none when unset, and refuses a scheme it does not know', () => {
    expect(runStoreFromEnvironment({})).toBeUndefined();
    expect(runStoreFromEnvironment({ CAIRN_RUN_STORE: '  ' })).toBeUndefined();
    expect(runStoreFromEnvironment({ CAIRN_RUN_STORE: 'file:///srv/cairn%20runs' })).toMatchObject({
      directory: '/srv/cairn runs',
    });
    expect(runStoreFromEnvironment({ CAIRN_RUN_STORE: './runs' })).toMatchObject({ directory: './runs' });
    for (const url of ['postgres://db/cairn', 'postgresql://db/cairn', 'redis://cache:6379', 'rediss://cache'])
      expect(runStoreFromEnvironment({ CAIRN_RUN_STORE: url })).toMatchObject({ put: expect.any(Function) });
    expect(() => runStoreFromEnvironment({ CAIRN_RUN_STORE: 's3://bucket' })).toThrow(/postgres:\/\/, redis:\/\//);
  });

  it('never shows a password it was given', () => {
    expect(() => runStoreFromEnvironment({ CAIRN_RUN_STORE: 's3://key:s3cret@bucket' })).toThrow(
      /^CAIRN_RUN_STORE=s3:\/\/key:\*\*\*@bucket: use/,
    );
  });
});

describe('keepPruned', () => {
  it('prunes what is older than CAIRN_RUN_STORE_MAX_AGE_DAYS (30 by default), tells when pruning fails, refuses a bad age', async () => {
    const asked: number[] = [];
    const said: string[] = [];
    const store = Object.assign(new MemoryRunStore(), {
      prune: async (maxAgeMs: number) => {
        asked.push(maxAgeMs);
        if (asked.length === 2) throw new Error('permission denied for table cairn_run_store');
        return 0;
      },
    });
    keepPruned(store, {}, (line) => said.push(line))();
    keepPruned(store, { CAIRN_RUN_STORE_MAX_AGE_DAYS: '2' }, (line) => said.push(line))();
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual([30 * 86_400_000, 2 * 86_400_000]);
    expect(said).toEqual([expect.stringContaining('pruning the run store failed (permission denied')]);
    expect(() => keepPruned(store, { CAIRN_RUN_STORE_MAX_AGE_DAYS: 'soon' })).toThrow(/number of days above 0/);
    // A store that cannot be pruned (Redis: values expire on their own) is left alone.
    expect(() => keepPruned(new MemoryRunStore(), { CAIRN_RUN_STORE_MAX_AGE_DAYS: 'soon' })).not.toThrow();
  });
});

describe.skipIf(process.env.CAIRN_NO_REDIS === '1')('a run store on Redis', () => {
  it('keeps a value for the age CAIRN_RUN_STORE_MAX_AGE_DAYS says, as the other stores do', async () => {
    const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const key = `test:${randomUUID()}`;
    const ttl = async (store: RunStore) => {
      await store.put([[key, 'v']]);
      const client = createClient({ url });
      await client.connect();
      try {
        return Number(await client.sendCommand(['PTTL', key]));
      } finally {
        await client.sendCommand(['DEL', key]);
        await client.close();
        await store.close!();
      }
    };
    const DAY = 86_400_000;
    const byDefault = await ttl(runStoreFromEnvironment({ CAIRN_RUN_STORE: url })!);
    expect(byDefault).toBeGreaterThan(29 * DAY);
    expect(byDefault).toBeLessThanOrEqual(30 * DAY);
    const twoDays = await ttl(runStoreFromEnvironment({ CAIRN_RUN_STORE: url, CAIRN_RUN_STORE_MAX_AGE_DAYS: '2' })!);
    expect(twoDays).toBeGreaterThan(DAY);
    expect(twoDays).toBeLessThanOrEqual(2 * DAY);
  });
});
