/** The local PostgreSQL the run store tests use (CI has it at 127.0.0.1:5432, trust auth). */
import pg from 'pg';

export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Drops a table a test made. */
export async function dropTable(table: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP TABLE IF EXISTS ${table}`);
  } finally {
    await client.end();
  }
}
