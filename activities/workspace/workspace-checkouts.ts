/**
 * The working copies a workspace tool call runs in: a private directory at the call's snapshot,
 * committed as the run's next snapshot when the call ends well, thrown away when it does not.
 *
 * A copy is restored from the worker's blob cache (reading the run store only for what the cache
 * lacks), or reused warm: after a commit the directory is kept for `idleMs` under its new digest
 * and MOVED (renamed) to the next checkout of that digest, so no two calls ever share one. After
 * `idleMs` unused it is deleted: a run that waits a day for a person holds no directory on any
 * worker, and resumes on whichever worker runs its next call. Each copy remembers every file's
 * stat, so a commit rehashes only what changed (snapshot-scan.ts). Copies of different runs, or two
 * of the same snapshot, run side by side. Worker side only.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, symlinkSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ToolFailure } from '../../shared/failures/tool-failure.js';
import type { RunStore } from '../../shared/storage/run-store.js';
import type { WorkspaceCallInput } from '../../shared/workspace/workspace-call.js';
import type { WorkspaceLimits } from '../../shared/workspace/workspace-config.js';
import { slices } from './event-loop-slices.js';
import { buildManifest, type Manifest } from './snapshot-manifest.js';
import { type KnownFiles, scanTree, trustedStatKey } from './snapshot-scan.js';
import { snapshotStore, type SnapshotStore } from './snapshot-store.js';

export interface WorkspaceCheckouts {
  /**
   * A private working copy at `input.digest`; without one, created from `input.from` (a directory,
   * a tar archive through the system `tar`, a snapshot, or nothing) and committed, so its digest is
   * always known. Throws an Error (Temporal retries) when the store lacks the snapshot or its files.
   */
  checkout(input: WorkspaceCallInput): Promise<Checkout>;
  /** Deletes every copy and the blob cache; the engine is not used after. */
  close(): Promise<void>;
  /** The snapshot store underneath (its counts, for tests and benches). */
  readonly snapshots: SnapshotStore;
}

export interface Checkout {
  /** An absolute directory, private to this call. */
  readonly root: string;
  /** The snapshot it holds. */
  readonly digest: string;
  /**
   * Scans the copy, stores what changed and returns the new digest (the same digest when nothing
   * changed). Over `limits.bytes` or `limits.files` it throws a ToolFailure `semantic_error`, and the
   * workspace stays as it was. Either way the checkout is over: after a success the directory is
   * kept warm for `idleMs` under the new digest; after a failure it is deleted.
   */
  commit(): Promise<string>;
  /** Throws the copy away: a failed call changes nothing. Does nothing after `commit`. */
  discard(): Promise<void>;
}

export interface WorkspaceCheckoutsOptions {
  readonly store: RunStore;
  /** Default `<os tmpdir>/cairn-workspaces-<pid>`; everything in it belongs to this engine. */
  readonly directory?: string;
  /** How long a committed copy is kept for the run's next call. Default 30,000 ms. */
  readonly idleMs?: number;
  /** The local blob cache's bound. Default 2 GiB. */
  readonly cacheBytes?: number;
}

interface WarmCopy {
  readonly root: string;
  readonly manifest: Manifest;
  readonly known: KnownFiles;
  readonly timer: NodeJS.Timeout;
}

const EMPTY = buildManifest([]);

const run = promisify(execFile);

export function workspaceCheckouts(options: WorkspaceCheckoutsOptions): WorkspaceCheckouts {
  const directory = options.directory ?? join(tmpdir(), `cairn-workspaces-${process.pid}`);
  const idleMs = options.idleMs ?? 30_000;
  const copies = join(directory, 'copies');
  const snapshots = snapshotStore({
    store: options.store,
    directory: join(directory, 'blobs'),
    ...(options.cacheBytes === undefined ? {} : { cacheBytes: options.cacheBytes }),
  });
  const warm = new Map<string, WarmCopy[]>();
  let closed = false;
  // The empty snapshot has no files; its manifest is stored once so any worker can restore it.
  let emptySaved: Promise<void> | undefined;

  const freshRoot = async () => {
    await mkdir(copies, { recursive: true });
    return join(copies, randomUUID());
  };

  const takeWarm = (digest: string): WarmCopy | undefined => {
    const list = warm.get(digest);
    const copy = list?.pop();
    if (list?.length === 0) warm.delete(digest);
    if (copy) clearTimeout(copy.timer);
    return copy;
  };

  const park = (root: string, manifest: Manifest, known: KnownFiles) => {
    if (closed) return void rm(root, { recursive: true, force: true });
    const timer = setTimeout(() => {
      const list = warm.get(manifest.digest) ?? [];
      const at = list.indexOf(copy);
      if (at < 0) return;
      list.splice(at, 1);
      if (list.length === 0) warm.delete(manifest.digest);
      void rm(root, { recursive: true, force: true });
    }, idleMs);
    timer.unref();
    const copy: WarmCopy = { root, manifest, known, timer };
    warm.set(manifest.digest, [...(warm.get(manifest.digest) ?? []), copy]);
  };

  const checkoutOf = (
    root: string,
    manifest: Manifest,
    known: KnownFiles,
    limits: Required<WorkspaceLimits>,
  ): Checkout => {
    let over = false;
    const end = () => !over && (over = true);
    return {
      root,
      digest: manifest.digest,
      async commit() {
        if (!end()) throw new Error(`This checkout of ${manifest.digest} was already committed or discarded.`);
        try {
          const scan = await scanTree(root, {
            known,
            limits,
            overLimit: refuse('The call left the workspace too big'),
          });
          if (scan.manifest.digest !== manifest.digest) {
            const parentShas = new Set([...known.values()].map((file) => file.sha256));
            await snapshots.save(scan.manifest, root, parentShas);
          }
          park(root, scan.manifest, scan.known);
          return scan.manifest.digest;
        } catch (error) {
          await rm(root, { recursive: true, force: true });
          throw error;
        }
      },
      async discard() {
        if (end()) await rm(root, { recursive: true, force: true });
      },
    };
  };

  /** Writes `manifest`'s tree into the empty `root`; returns what it knows of each file. */
  const materialize = async (root: string, manifest: Manifest): Promise<KnownFiles> => {
    const files = manifest.entries.flatMap((e) => (e.type === 'file' ? [e] : []));
    await snapshots.fetch(manifest.digest, files);
    mkdirSync(root, { mode: 0o755 });
    const pause = slices();
    for (const entry of manifest.entries) {
      await pause();
      const path = join(root, entry.path);
      if (entry.type === 'dir') {
        mkdirSync(path);
        chmodSync(path, 0o755); // whatever the umask
      } else if (entry.type === 'symlink') symlinkSync(entry.target, path);
      else {
        if (!snapshots.copyOutSync(entry, path)) {
          // The blob cache was emptied since the fetch: this one file again.
          await snapshots.fetch(manifest.digest, [entry]);
          if (!snapshots.copyOutSync(entry, path)) throw new Error(`Could not restore ${entry.path}.`);
        }
      }
    }
    const rememberedAt = Date.now();
    const known: KnownFiles = new Map();
    for (const file of files) {
      await pause();
      const path = join(root, file.path);
      let stats = lstatSync(path);
      if ((stats.mode & 0o7777) !== file.mode) {
        chmodSync(path, file.mode); // the exec bit, or a umask other than 022
        stats = lstatSync(path);
      }
      known.set(file.path, { sha256: file.sha256, stat: trustedStatKey(stats, rememberedAt) });
    }
    return known;
  };

  const open = async (digest: string, limits: Required<WorkspaceLimits>): Promise<Checkout> => {
    const copy = takeWarm(digest);
    const root = await freshRoot();
    if (copy) {
      await rename(copy.root, root);
      return checkoutOf(root, copy.manifest, copy.known, limits);
    }
    const manifest = await snapshots.manifest(digest);
    try {
      return checkoutOf(root, manifest, await materialize(root, manifest), limits);
    } catch (error) {
      await rm(root, { recursive: true, force: true });
      throw error;
    }
  };

  /** A copy made from a directory, an archive or nothing, committed at once. */
  const create = async (input: WorkspaceCallInput): Promise<Checkout> => {
    const { from, limits } = input;
    const root = await freshRoot();
    try {
      // The system's cp: many times faster than fs.cp on many small files; -p keeps modification
      // times, so the copy's files are not "racily" new (snapshot-scan.ts) at the first commit.
      if ('dir' in from) await run('cp', ['-RPp', '--', `${from.dir}/.`, root]);
      else {
        await mkdir(root, { mode: 0o755 });
        if ('archive' in from) await run('tar', ['-xf', from.archive, '-C', root, '--no-same-owner']);
      }
      const source =
        'dir' in from ? `directory ${from.dir}` : 'archive' in from ? `archive ${from.archive}` : 'nothing';
      const scan = await scanTree(root, { limits, overLimit: refuse(`The workspace's source (${source}) is too big`) });
      await snapshots.save(scan.manifest, root, new Set());
      return checkoutOf(root, scan.manifest, scan.known, limits);
    } catch (error) {
      await rm(root, { recursive: true, force: true });
      throw error;
    }
  };

  return {
    snapshots,
    async checkout(input) {
      if (closed) throw new Error('The workspace checkouts were closed.');
      if (input.digest !== undefined) return open(input.digest, input.limits);
      if ('snapshot' in input.from) return open(input.from.snapshot, input.limits);
      if (!('empty' in input.from)) return create(input);
      await (emptySaved ??= snapshots.save(EMPTY, copies, new Set()).catch((error: unknown) => {
        emptySaved = undefined;
        throw error;
      }));
      return open(EMPTY.digest, input.limits);
    },
    async close() {
      closed = true;
      for (const list of warm.values()) for (const copy of list) clearTimeout(copy.timer);
      warm.clear();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The ToolFailure for a tree over its limits; the workspace is left as it was. */
const refuse =
  (what: string) =>
  (detail: string): never => {
    throw new ToolFailure('semantic_error', `${what}: ${detail}.`, {
      hint: {
        message: `${what}: ${detail}. Nothing was committed: the workspace is unchanged, as before this call. Make the change smaller (delete build output or downloads it created) and try again.`,
      },
    });
  };
