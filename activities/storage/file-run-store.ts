/**
 * A run store in a directory: one file per key, named by the key's SHA-256, written to a
 * temporary name and renamed, so a reader never sees half a value (a worker killed mid-write
 * leaves a stray temporary file, never a wrong one). Every worker of the fleet must see the same
 * directory (one machine, or a shared volume). Worker side only.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunStore } from '../../shared/storage/run-store.js';

export interface FileRunStoreOptions {
  readonly directory: string;
}

export interface FileRunStore extends RunStore {
  readonly directory: string;
  /** Removes values written more than `maxAgeMs` ago (by the files' modification time); returns how many. */
  prune(maxAgeMs: number, now?: number): Promise<number>;
}

/** Files written or read at once. */
const PARALLEL = 32;

const name = (key: string) => createHash('sha256').update(key).digest('hex');

async function inBatches<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += PARALLEL)
    results.push(...(await Promise.all(items.slice(i, i + PARALLEL).map(fn))));
  return results;
}

export function fileRunStore(options: FileRunStoreOptions): FileRunStore {
  const { directory } = options;
  let made: Promise<unknown> | undefined;
  return {
    directory,
    async put(entries) {
      // Made once; a failure (a volume not mounted yet) is tried again by the next write.
      await (made ??= mkdir(directory, { recursive: true }).catch((err: unknown) => {
        made = undefined;
        throw err;
      }));
      // A key written twice in one batch: only its last value is written (files written at once
      // would be renamed into place in any order).
      const last = [...new Map(entries.map(([key, value]) => [key, value] as const))];
      await inBatches(last, async ([key, value]) => {
        const file = join(directory, name(key));
        const staging = `${file}.${randomUUID()}.tmp`;
        await writeFile(staging, value, 'utf8');
        await rename(staging, file);
      });
    },
    get: (keys) =>
      inBatches(keys, (key) =>
        readFile(join(directory, name(key)), 'utf8').catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return undefined;
          throw err;
        }),
      ),
    async prune(maxAgeMs, now = Date.now()) {
      const names = await readdir(directory).catch(() => [] as string[]);
      let removed = 0;
      for (const file of names) {
        const path = join(directory, file);
        const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: now }));
        if (now - mtimeMs > maxAgeMs) {
          await rm(path, { force: true });
          removed++;
        }
      }
      return removed;
    },
  };
}
