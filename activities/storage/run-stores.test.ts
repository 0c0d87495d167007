/**
 * The run store drivers against the real thing: a directory, the local Redis and the local
 * PostgreSQL (CI has both; CAIRN_NO_REDIS=1 / CAIRN_NO_POSTGRES=1 skip them elsewhere).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunStore } from '../../shared/storage/run-store.js';
import { fileRunStore } from './file-run-store.js';
import { postgresRunStore } from './postgres-run-store.js';
import { redisRunStore } from './redis-run-store.js';
import { dropTable, POSTGRES_URL } from '../../test/support/postgres.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(() => Promise.all(cleanups.map((c) => c())));

const drivers: [string, boolean, () => Promise<RunStore>][] = [
  [
    'a directory',
    false,
    async () => {
      const directory = await mkdtemp(join(tmpdir(), 'cairn-run-store-'));
      cleanups.push(() => rm(directory, { recursive: true, force: true }));
      return fileRunStore({ directory });
    },
  ],
  [
    'Redis',
    process.env.CAIRN_NO_REDIS === '1',
    async () => {
      const store = redisRunStore({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', ttlMs: 60_000 });
      cleanups.push(() => store.close!());
      return store;
    },
  ],
  [
    'PostgreSQL',
    process.env.CAIRN_NO_POSTGRES === '1',
    async () => {
      const table = `cairn_store_test_${randomUUID().slice(0, 8)}`;
      const store = postgresRunStore({ connectionString: POSTGRES_URL, table });
      cleanups.push(() => store.close().then(() => dropTable(table)));
      return store;
    },
  ],
];

describe.each(drivers)('a run store on %s', (_, skip, open) => {
  it.skipIf(skip)('gives back what was put, in the order asked, undefined where there is nothing', async () => {
    const store = await open();
    const prefix = `test:${randomUUID()}:`;
    const entries = Array.from(
      { length: 1_500 },
      (_, i) => [`${prefix}${i}`, JSON.stringify({ i, text: 'é'.repeat(i % 7) })] as const,
    );
    await store.put(entries);
    const keys = [`${prefix}missing`, ...entries.map(([key]) => key).reverse()];
    const values = await store.get(keys);
    expect(values[0]).toBeUndefined();
    expect(values.slice(1)).toEqual(entries.map(([, value]) => value).reverse());
    expect(await store.get([])).toEqual([]);
  });

  it.skipIf(skip)('replaces a value written again, the last of a batch winning', async () => {
    const store = await open();
    const key = `test:${randomUUID()}`;
    await store.put([[key, 'first']]);
    await store.put([
      [key, 'second'],
      [key, 'third'],
    ]);
    expect(await store.get([key])).toEqual(['third']);
  });
});

describe('a run store in a directory', () => {
  it('never shows half a value: a temporary file left by a killed writer is not read, and is pruned', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'cairn-run-store-'));
    cleanups.push(() => rm(directory, { recursive: true, force: true }));
    const store = fileRunStore({ directory });
    await store.put([['k', 'whole']]);
    const [name] = await readdir(directory);
    await writeFile(join(directory, `${name}.dead.tmp`), 'half');
    expect(await store.get(['k'])).toEqual(['whole']);
    expect(await store.prune(60_000, Date.now() + 120_000)).toBe(2);
    expect(await store.get(['k'])).toEqual([undefined]);
  });

  it('makes its directory on a later write when the first could not (a volume not mounted yet)', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'cairn-run-store-'));
    cleanups.push(() => rm(parent, { recursive: true, force: true }));
    await writeFile(join(parent, 'volume'), 'not a directory yet');
    const store = fileRunStore({ directory: join(parent, 'volume', 'runs') });
    await expect(store.put([['k', 'v']])).rejects.toThrow(/ENOTDIR|EEXIST/);
    await rm(join(parent, 'volume'));
    await store.put([['k', 'v']]);
    expect(await store.get(['k'])).toEqual(['v']);
  });
});

describe.skipIf(process.env.CAIRN_NO_POSTGRES === '1')('a run store on PostgreSQL', () => {
  it('prunes what is older than the age asked, by the database clock', async () => {
    const table = `cairn_store_test_${randomUUID().slice(0, 8)}`;
    const store = postgresRunStore({ connectionString: POSTGRES_URL, table });
    try {
      await store.put([['a', '1']]);
      expect(await store.prune(3_600_000)).toBe(0);
      expect(await store.prune(-1_000)).toBe(1);
      expect(await store.get(['a'])).toEqual([undefined]);
    } finally {
      await store.close();
      await dropTable(table);
    }
  });

  it('uses a table made for it by a role that may not create tables in the schema', async () => {
    const id = randomUUID().slice(0, 8);
    const [schema, role, table] = [`cairn_locked_${id}`, `cairn_writer_${id}`, 'cairn_run_store'];
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.query(
        `CREATE TABLE ${schema}.${table} (key text PRIMARY KEY, value text NOT NULL, stored_at timestamptz NOT NULL DEFAULT now())`,
      );
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
      await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${schema}.${table} TO ${role}`);
      const url = new URL(POSTGRES_URL);
      url.username = role;
      url.searchParams.set('options', `-c search_path=${schema}`);
      const store = postgresRunStore({ connectionString: url.toString() });
      try {
        await store.put([['k', 'v']]);
        expect(await store.get(['k'])).toEqual(['v']);
      } finally {
        await store.close();
      }
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.end();
    }
  });

  it('rejects a table name that is not a plain identifier', () => {
    expect(() => postgresRunStore({ table: 'x; DROP TABLE y' })).toThrow(/plain table name/);
  });
});
