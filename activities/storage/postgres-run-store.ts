/**
 * A run store on PostgreSQL: one table of keys and values, written and read a batch per
 * statement. The table is made on first use; `prune` removes what is older than a given age.
 * Needs the optional `pg` package. Worker side only.
 */
import type { RunStore } from '../../shared/storage/run-store.js';

export interface PostgresRunStoreOptions {
  /** A libpq connection string; default: libpq's environment (PGHOST, PGPORT, PGUSER, PGDATABASE…). */
  readonly connectionString?: string;
  /** Default `cairn_run_store`. */
  readonly table?: string;
  /** Connections in the pool. Default 4. */
  readonly maxConnections?: number;
}

export interface PostgresRunStore extends RunStore {
  /** Removes values stored more than `maxAgeMs` ago (by the database's clock); returns how many. */
  prune(maxAgeMs: number): Promise<number>;
  close(): Promise<void>;
}

interface Pool {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

const TABLE = /^[a-z_][a-z0-9_]{0,62}$/;
/** Bound of a connection's opening and of each statement, in ms. */
const TIMEOUT_MS = 5_000;

/** A run store on PostgreSQL; `close()` it when its workers have stopped. */
export function postgresRunStore(options: PostgresRunStoreOptions = {}): PostgresRunStore {
  const table = options.table ?? 'cairn_run_store';
  if (!TABLE.test(table)) throw new Error(`postgresRunStore: "${table}" is not a plain table name.`);
  let ready: Promise<Pool> | undefined;
  const pool = () =>
    (ready ??= (async () => {
      let pg: { default: { Pool: new (config: object) => Pool } };
      try {
        pg = (await import('pg')) as unknown as typeof pg;
      } catch {
        throw new Error('postgresRunStore needs the `pg` package: npm install pg');
      }
      const created = new pg.default.Pool({
        ...(options.connectionString && { connectionString: options.connectionString }),
        max: options.maxConnections ?? 4,
        // A database that stops answering fails a write or a read in seconds: a write waits inside
        // a workflow task (its timeout is 10 s), and a read that fails falls back to the Query.
        connectionTimeoutMillis: TIMEOUT_MS,
        query_timeout: TIMEOUT_MS,
      });
      // An idle connection the server drops is replaced; it never crashes the worker.
      created.on('error', () => {});
      try {
        // A table made by someone else is used as it is: a role that may not create tables in the
        // schema (PostgreSQL 15's default on public) is refused CREATE TABLE IF NOT EXISTS even then.
        const { rows } = await created.query('SELECT to_regclass($1) IS NOT NULL AS made', [table]);
        if (!rows[0]?.made)
          await created.query(
            `CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, value text NOT NULL, stored_at timestamptz NOT NULL DEFAULT now())`,
          );
      } catch (err) {
        await created.end().catch(() => undefined);
        throw err;
      }
      return created;
    })().catch((err: unknown) => {
      ready = undefined; // tried again on the next use
      throw err;
    }));
  return {
    async put(entries) {
      if (entries.length === 0) return;
      // One statement; a key written twice in one batch would make ON CONFLICT fail.
      const unique = new Map(entries);
      await (await pool()).query(
        `INSERT INTO ${table} (key, value) SELECT * FROM unnest($1::text[], $2::text[])
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, stored_at = now()`,
        [[...unique.keys()], [...unique.values()]],
      );
    },
    async get(keys) {
      if (keys.length === 0) return [];
      const { rows } = await (await pool()).query(`SELECT key, value FROM ${table} WHERE key = ANY($1::text[])`, [
        keys,
      ]);
      const values = new Map(rows.map((row) => [row.key as string, row.value as string]));
      return keys.map((key) => values.get(key));
    },
    async prune(maxAgeMs) {
      const { rowCount } = await (await pool()).query(
        `DELETE FROM ${table} WHERE stored_at < now() - make_interval(secs => $1)`,
        [maxAgeMs / 1000],
      );
      return rowCount ?? 0;
    },
    async close() {
      const opened = ready;
      ready = undefined;
      await (await opened?.catch(() => undefined))?.end();
    },
  };
}
