import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatabaseInUseError, devServerHolding, lockDatabase, lockFileOf, updateLock } from './dev-server-lock.js';

describe('one database, one dev server', () => {
  it('a live holder refuses another process, naming itself; a dead one is taken over; the release removes only its own lock', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-lock-'));
    const db = join(dir, 'cairn.db');
    try {
      // Held by another live process (the test runner's parent): refused.
      await writeFile(
        lockFileOf(db),
        JSON.stringify({ pid: process.ppid, address: '127.0.0.1:7233', uiUrl: 'http://localhost:8233' }),
      );
      const refused = await lockDatabase(db, { pid: process.pid, address: '127.0.0.1:7300' }).catch(
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(DatabaseInUseError);
      expect((refused as Error).message).toBe(
        `${db} is in use by another dev server (pid ${process.ppid}, 127.0.0.1:7233, UI http://localhost:8233): one database, one dev server. ` +
          'Use that one (TEMPORAL_ADDRESS=127.0.0.1:7233 cairn dev runs only the worker on it), stop it, or pass --db-filename <another file>.',
      );
      expect(devServerHolding(db)).toMatchObject({ pid: process.ppid });

      // Held by a process that is gone (no such pid): taken over.
      await writeFile(lockFileOf(db), JSON.stringify({ pid: 2 ** 22 + 1, address: '127.0.0.1:7233' }));
      expect(devServerHolding(db)).toBeUndefined();
      const release = await lockDatabase(db, { pid: process.pid, address: '127.0.0.1:7300' });
      await updateLock(db, { pid: process.pid, address: '127.0.0.1:40001' });
      expect(JSON.parse(await readFile(lockFileOf(db), 'utf8'))).toEqual({
        pid: process.pid,
        address: '127.0.0.1:40001',
      });
      await release();
      expect(devServerHolding(db)).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
