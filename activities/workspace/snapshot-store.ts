/**
 * Snapshots in the run store the fleet shares, content-addressed, with a worker-local blob cache.
 *
 * Keys: `cairn:w:m:<hex>` holds a manifest's canonical text (hex of its digest);
 * `cairn:w:b:<sha256>` holds a file's content as base64, or, for a file over CHUNK_BYTES,
 * `chunks:<n>` and the base64 parts under `cairn:w:c:<sha256>:<i>` (RunStore values are strings;
 * 4 MiB parts stay far below what Redis, PostgreSQL and a file hold comfortably). A commit stores
 * only the blobs that are neither in its parent snapshot nor known stored by this worker, and the
 * manifest after them: a reader that finds a manifest finds its blobs, unless the store lost them
 * (a TTL), which a reader reports as an Error naming the file, never as a wrong workspace. Every
 * blob read from the store is checked against its hash.
 *
 * The local cache is one file per blob under `<directory>/<generation>/<2 hex>/<sha256>` (mode 0o644,
 * so a copy needs no chmod), written to a temporary name and renamed (two calls may fetch the same
 * blob at once). No command sees it: the sandbox binds only the working copy, and copies are never
 * hard links. It is emptied whole when it grows past `cacheBytes`; the next restore reads the store
 * again. Worker side only.
 */
import { randomUUID } from 'node:crypto';
import { constants, copyFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunStore } from '../../shared/storage/run-store.js';
import { slices } from './event-loop-slices.js';
import { digestHex, type Manifest, parseManifest, sha256Hex } from './snapshot-manifest.js';

/** A file above this many bytes is stored in parts. */
export const CHUNK_BYTES = 4 * 1024 * 1024;
/** Above this a restored file is copied with copyFile (a reflink where possible), else read and written. */
const REFLINK_BYTES = 1024 * 1024;
/** Raw bytes sent to or read from the store in one call. */
const BATCH_BYTES = 32 * 1024 * 1024;
/** Manifests kept parsed in memory. */
const MANIFESTS_KEPT = 64;
/** Blob hashes remembered as stored before the memory is dropped. */
const STORED_KEPT = 200_000;

export const manifestKey = (digest: string) => `cairn:w:m:${digestHex(digest)}`;
export const blobKey = (sha256: string) => `cairn:w:b:${sha256}`;
export const chunkKey = (sha256: string, index: number) => `cairn:w:c:${sha256}:${index}`;

/** A file of a manifest, as far as its content goes. */
export interface BlobRef {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
}

export interface SnapshotStore {
  /** The manifest of `digest`; throws an Error when the store has none (or a corrupt one). */
  manifest(digest: string): Promise<Manifest>;
  /**
   * Stores `manifest`: the content of its files not in `parentShas` (read from `root`, checked
   * against their hashes), then its text. Also puts new content into the local cache.
   */
  save(manifest: Manifest, root: string, parentShas: ReadonlySet<string>): Promise<void>;
  /** Makes sure every blob of `files` is in the local cache, reading the missing ones from the store. */
  fetch(digest: string, files: readonly BlobRef[]): Promise<void>;
  /**
   * Copies a cached blob to `destination` (a reflink where the file system has them, never a hard
   * link: a command must not reach the cache), synchronously; false when the cache no longer has it
   * (it was emptied since `fetch`: fetch it again).
   */
  copyOutSync(file: BlobRef, destination: string): boolean;
  /** Store reads and writes so far (values), for tests and benches. */
  readonly counts: { puts: number; gets: number };
}

export interface SnapshotStoreOptions {
  readonly store: RunStore;
  /** The local blob cache's directory. */
  readonly directory: string;
  /** Default 2 GiB. */
  readonly cacheBytes?: number;
}

export function snapshotStore(options: SnapshotStoreOptions): SnapshotStore {
  const { store, directory } = options;
  const cacheBytes = options.cacheBytes ?? 2 * 1024 * 1024 * 1024;
  const manifests = new Map<string, Manifest>();
  const stored = new Set<string>();
  let cached = new Set<string>();
  let cachedBytes = 0;
  let generation = 0;
  const counts = { puts: 0, gets: 0 };
  const blobPath = (sha: string) => join(directory, String(generation), sha.slice(0, 2), sha);

  const remember = (manifest: Manifest) => {
    manifests.delete(manifest.digest);
    manifests.set(manifest.digest, manifest);
    if (manifests.size > MANIFESTS_KEPT) manifests.delete(manifests.keys().next().value!);
  };
  const put = async (entries: [string, string][]) => {
    counts.puts += entries.length;
    await store.put(entries);
  };
  const get = async (keys: string[]) => {
    counts.gets += keys.length;
    return store.get(keys);
  };

  const made = new Set<string>();
  /** Writes `content` into the cache (synchronously); empties the cache first when it is full. */
  const cache = (sha: string, content: Buffer) => {
    if (cached.has(sha)) return;
    if (cachedBytes + content.length > cacheBytes) {
      // A copy from the old generation fails with ENOENT and fetches again (copyOutSync).
      const old = join(directory, String(generation++));
      cached = new Set();
      cachedBytes = 0;
      made.clear();
      void rm(old, { recursive: true, force: true });
    }
    const path = blobPath(sha);
    const parent = join(path, '..');
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    const staging = `${path}.${randomUUID()}.tmp`;
    writeFileSync(staging, content, { mode: 0o644 });
    renameSync(staging, path);
    cached.add(sha);
    cachedBytes += content.length;
  };

  const inBatches = async (files: readonly BlobRef[], each: (batch: readonly BlobRef[]) => Promise<void>) => {
    let batch: BlobRef[] = [];
    let size = 0;
    for (const file of files) {
      batch.push(file);
      size += file.size;
      if (size >= BATCH_BYTES) {
        await each(batch);
        batch = [];
        size = 0;
      }
    }
    if (batch.length > 0) await each(batch);
  };

  const unique = (files: readonly BlobRef[], skip: (sha: string) => boolean) => {
    const seen = new Map<string, BlobRef>();
    for (const file of files) if (!skip(file.sha256) && !seen.has(file.sha256)) seen.set(file.sha256, file);
    return [...seen.values()];
  };

  return {
    counts,
    async manifest(digest) {
      const known = manifests.get(digest);
      if (known) return known;
      const [text] = await get([manifestKey(digest)]);
      if (text === undefined)
        throw new Error(`Workspace snapshot ${digest} is not in the run store (lost to a TTL, or another store).`);
      const manifest = parseManifest(digest, text);
      remember(manifest);
      return manifest;
    },

    async save(manifest, root, parentShas) {
      const files = manifest.entries.flatMap((e) => (e.type === 'file' ? [e] : []));
      const missing = unique(files, (sha) => parentShas.has(sha) || stored.has(sha));
      const pause = slices();
      await inBatches(missing, async (batch) => {
        const entries: [string, string][] = [];
        for (const file of batch) {
          await pause();
          const content = readFileSync(join(root, file.path));
          if (sha256Hex(content) !== file.sha256)
            throw new Error(`Workspace file ${file.path} changed while its snapshot was being stored.`);
          const base64 = content.toString('base64');
          if (content.length <= CHUNK_BYTES) entries.push([blobKey(file.sha256), base64]);
          else {
            const part = (CHUNK_BYTES / 3) * 4; // whole base64 quanta per part
            const n = Math.ceil(base64.length / part);
            for (let i = 0; i < n; i++)
              entries.push([chunkKey(file.sha256, i), base64.slice(i * part, (i + 1) * part)]);
            // The head last: a reader that finds it finds its parts.
            entries.push([blobKey(file.sha256), `chunks:${n}`]);
          }
          cache(file.sha256, content);
        }
        await put(entries);
      });
      await put([[manifestKey(manifest.digest), manifest.text]]);
      if (stored.size + missing.length > STORED_KEPT) stored.clear();
      for (const file of missing) stored.add(file.sha256);
      remember(manifest);
    },

    async fetch(digest, files) {
      const missing = unique(files, (sha) => cached.has(sha));
      const lost = (file: BlobRef): never => {
        throw new Error(
          `Workspace snapshot ${digest}: the run store has lost the content of ${file.path} (sha256 ${file.sha256}); the snapshot cannot be restored.`,
        );
      };
      const pause = slices();
      await inBatches(missing, async (batch) => {
        const heads = await get(batch.map((file) => blobKey(file.sha256)));
        for (let i = 0; i < batch.length; i++) {
          const file = batch[i]!;
          await pause();
          let base64 = heads[i] ?? lost(file);
          if (base64.startsWith('chunks:')) {
            const n = Number(base64.slice('chunks:'.length));
            const parts = await get(Array.from({ length: n }, (_, j) => chunkKey(file.sha256, j)));
            base64 = parts.map((part) => part ?? lost(file)).join('');
          }
          const content = Buffer.from(base64, 'base64');
          if (content.length !== file.size || sha256Hex(content) !== file.sha256)
            throw new Error(`Workspace snapshot ${digest}: the run store holds wrong content for ${file.path}.`);
          cache(file.sha256, content);
          stored.add(file.sha256);
        }
      });
    },

    copyOutSync(file, destination) {
      const source = blobPath(file.sha256);
      try {
        // Small files: a read and a write are 2-4x faster than copyFile (which tries a reflink,
        // then fchmods); big ones: a reflink where the file system has them.
        if (file.size > REFLINK_BYTES) copyFileSync(source, destination, constants.COPYFILE_FICLONE);
        else {
          const content = readFileSync(source);
          writeFileSync(destination, content, { flag: 'wx' });
        }
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || (error as NodeJS.ErrnoException).path !== source)
          throw error;
        cached.delete(file.sha256);
        return false;
      }
    },
  };
}
