/**
 * The run store CAIRN_RUN_STORE names, for `runCairnWorker` and `cairn worker`: `postgres://…`
 * (or `postgresql://…`), `redis://…` (or `rediss://…`), or a directory (`file:///srv/cairn` or a
 * path). Unset: none (a model turn on a worker that did not run the run's last task Queries it).
 * A PostgreSQL or directory store is pruned by the worker that made it (`keepPruned`): values older
 * than CAIRN_RUN_STORE_MAX_AGE_DAYS (default 30) go; a run still open that needs one has it read
 * by Query. Redis values expire on their own after as long. Node-only.
 */
import { fileURLToPath } from 'node:url';
import { fileRunStore } from '../activities/storage/file-run-store.js';
import { postgresRunStore } from '../activities/storage/postgres-run-store.js';
import { redisRunStore } from '../activities/storage/redis-run-store.js';
import { shownUrl } from '../activities/storage/shown-url.js';
import type { RunStore } from '../shared/storage/run-store.js';

export const RUN_STORE_ENV = 'CAIRN_RUN_STORE';
export const RUN_STORE_MAX_AGE_ENV = 'CAIRN_RUN_STORE_MAX_AGE_DAYS';

const DAY_MS = 24 * 3_600_000;
/** How often a worker prunes the store it made. */
const PRUNE_EVERY_MS = 3_600_000;

/** The store `CAIRN_RUN_STORE` names; undefined when it is unset or empty. */
export function runStoreFromEnvironment(env: NodeJS.ProcessEnv = process.env): RunStore | undefined {
  const value = env[RUN_STORE_ENV]?.trim();
  if (!value) return undefined;
  if (/^postgres(ql)?:\/\//.test(value)) return postgresRunStore({ connectionString: value });
  if (/^rediss?:\/\//.test(value)) return redisRunStore({ url: value, ttlMs: maxAgeMs(env) });
  if (value.startsWith('file://')) return fileRunStore({ directory: fileURLToPath(value) });
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    throw new Error(`${RUN_STORE_ENV}=${shownUrl(value)}: use postgres://, redis:// or file:// (or a directory path).`);
  return fileRunStore({ directory: value });
}

/** How long the store keeps a value: CAIRN_RUN_STORE_MAX_AGE_DAYS days, default 30. */
function maxAgeMs(env: NodeJS.ProcessEnv): number {
  const days = Number(env[RUN_STORE_MAX_AGE_ENV]?.trim() || 30);
  if (!Number.isFinite(days) || days <= 0)
    throw new Error(`${RUN_STORE_MAX_AGE_ENV}=${env[RUN_STORE_MAX_AGE_ENV]}: give a number of days above 0.`);
  return days * DAY_MS;
}

/**
 * Prunes `store` now and every hour while the worker runs, when it can be pruned; returns what stops
 * it. Every worker of a fleet does it: a delete of what is already gone costs nothing.
 */
export function keepPruned(
  store: RunStore & { prune?: (maxAgeMs: number) => Promise<number> },
  env: NodeJS.ProcessEnv = process.env,
  log: (message: string) => void = (message) => console.warn(message),
): () => void {
  if (typeof store.prune !== 'function') return () => {};
  const age = maxAgeMs(env);
  const prune = () =>
    store.prune!(age).catch((err: unknown) =>
      log(`Cairn: pruning the run store failed (${(err as Error).message}); it is tried again in an hour.`),
    );
  void prune();
  const timer = setInterval(prune, PRUNE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
