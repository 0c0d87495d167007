/**
 * One dev server per database: `cairn dev` (and the demo) hold `<db>.lock` beside the SQLite file
 * while their server runs, a JSON line naming the holder's pid, address and UI. A second server on
 * the same file is refused with that line (two servers on one SQLite file fail each other's
 * writes: SQLITE_BUSY, "Failed to lock shard"); a lock whose pid is gone is stale and taken over.
 * `cairn worker` reads it to name the UI the server really has. Node-only.
 */
import { readFileSync } from 'node:fs';
import { unlink, writeFile } from 'node:fs/promises';

export interface DevServerHolder {
  readonly pid: number;
  readonly address: string;
  readonly uiUrl?: string;
}

/** Another live process holds the database: the message names it and the ways out. */
export class DatabaseInUseError extends Error {
  override readonly name = 'DatabaseInUseError';
  constructor(
    readonly dbFilename: string,
    readonly holder: DevServerHolder,
  ) {
    super(
      `${dbFilename} is in use by another dev server (pid ${holder.pid}, ${holder.address}${holder.uiUrl ? `, UI ${holder.uiUrl}` : ''}): one database, one dev server. ` +
        `Use that one (TEMPORAL_ADDRESS=${holder.address} cairn dev runs only the worker on it), stop it, or pass --db-filename <another file>.`,
    );
  }
}

export const lockFileOf = (dbFilename: string): string => `${dbFilename}.lock`;

/** Takes the lock for `holder` (this process); DatabaseInUseError when a live process has it. Returns the release. */
export async function lockDatabase(dbFilename: string, holder: DevServerHolder): Promise<() => Promise<void>> {
  const file = lockFileOf(dbFilename);
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(file, `${JSON.stringify(holder)}\n`, { flag: 'wx' });
      return async () => {
        // Only our own lock: a server that was taken over (we were presumed dead) leaves the new one's.
        if (readHolder(file)?.pid === holder.pid) await unlink(file).catch(() => {});
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw error;
    }
    const current = readHolder(file);
    if (current && current.pid !== holder.pid && isAlive(current.pid))
      throw new DatabaseInUseError(dbFilename, current);
    // Stale (its process is gone) or unreadable: take it over.
    await unlink(file).catch(() => {});
  }
}

/** Rewrites our own lock once the server's real address is known (a port the server picked). */
export async function updateLock(dbFilename: string, holder: DevServerHolder): Promise<void> {
  const file = lockFileOf(dbFilename);
  if (readHolder(file)?.pid === holder.pid) await writeFile(file, `${JSON.stringify(holder)}\n`);
}

/** The live dev server holding `dbFilename`, if any. */
export function devServerHolding(dbFilename: string): DevServerHolder | undefined {
  const holder = readHolder(lockFileOf(dbFilename));
  return holder && isAlive(holder.pid) ? holder : undefined;
}

function readHolder(file: string): DevServerHolder | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<DevServerHolder>;
    return typeof value.pid === 'number' && typeof value.address === 'string' ? (value as DevServerHolder) : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
