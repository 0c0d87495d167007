/**
 * Scans a working copy into a manifest, rehashing only what changed: a file whose stat (size,
 * mtime, inode, mode) is the one remembered from the last scan or materialization keeps its
 * remembered hash. ctime is left out on purpose, as git's `core.trustctime=false` does: the
 * sandbox chowns the whole copy around every command when the worker is root, which would make
 * every commit rehash everything. The price: a command that rewrites a file in place to the same
 * size and then sets its mtime back (`touch -d`) hides that change from the snapshot; it can only
 * fool its own run's workspace. A file stamped within RACY_MS of the moment its stat was
 * remembered is never trusted (the kernel's timestamps are coarse: a write in the same tick leaves
 * the same stamp), so it is rehashed next time, as git does for its "racily clean" entries.
 *
 * The scan also normalizes what it records: a file's permission bits become 0o644 or 0o755 and a
 * directory's 0o755 (so a `chmod 000` cannot make the copy unreadable and a warm copy equals a
 * restored one). Limits are checked before anything is hashed. Worker side only.
 */
import { createHash } from 'node:crypto';
import { chmodSync, createReadStream, lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { slices } from './event-loop-slices.js';
import { buildManifest, type Manifest, type ManifestEntry, type SnapshotMode } from './snapshot-manifest.js';

/** What a scan remembers of a file: its hash, and the stat it had (absent when not to be trusted). */
export interface KnownFile {
  readonly sha256: string;
  readonly stat?: string;
}

/** Remembered files by relative path. */
export type KnownFiles = Map<string, KnownFile>;

/** How close to the remembering a file's stamps may be before it is rehashed next time. */
export const RACY_MS = 50;

/** Above this a file is hashed as a stream rather than read whole. */
const STREAM_BYTES = 4 * 1024 * 1024;

export interface ScanOptions {
  readonly known?: KnownFiles;
  readonly limits: { readonly bytes: number; readonly files: number };
  /** Called (and expected to throw) when the tree is over a limit; `detail` says which. */
  readonly overLimit: (detail: string) => never;
}

export interface ScanResult {
  readonly manifest: Manifest;
  /** What to remember for the next scan. */
  readonly known: KnownFiles;
  /** How many files were hashed rather than remembered. */
  readonly hashed: number;
}

/** The key under which a file's stat is remembered. */
export const statKey = (s: Stats): string => `${s.size}:${s.mtimeMs}:${s.ino}:${s.mode}`;

/** The key, or undefined when the stamps are too recent to trust (see RACY_MS). */
export function trustedStatKey(s: Stats, rememberedAt: number): string | undefined {
  return s.mtimeMs > rememberedAt - RACY_MS ? undefined : statKey(s);
}

/** The SHA-256 of a file, hex (small files read synchronously: see event-loop-slices.ts). */
export async function hashFile(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  if (size <= STREAM_BYTES) return hash.update(readFileSync(path)).digest('hex');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Scans `root` into a manifest; see the file's TSDoc. */
export async function scanTree(root: string, options: ScanOptions): Promise<ScanResult> {
  const rememberedAt = Date.now();
  const { limits, overLimit } = options;
  const entries: ManifestEntry[] = [];
  const files: { path: string; stats: Stats; mode: SnapshotMode }[] = [];
  let bytes = 0;
  const count = () => {
    if (entries.length + files.length > limits.files)
      overLimit(`it has more than ${limits.files} files, directories and symlinks (the limit)`);
  };
  const pause = slices();
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const name of readdirSync(dir).sort()) {
      await pause();
      const path = prefix + name;
      const abs = join(dir, name);
      let s = lstatSync(abs);
      if (s.isDirectory()) {
        if ((s.mode & 0o7777) !== 0o755) chmodSync(abs, 0o755);
        entries.push({ type: 'dir', path });
        count();
        await walk(abs, `${path}/`);
      } else if (s.isFile()) {
        const mode: SnapshotMode = s.mode & 0o111 ? 0o755 : 0o644;
        if ((s.mode & 0o7777) !== mode) {
          chmodSync(abs, mode);
          s = lstatSync(abs);
        }
        bytes += s.size;
        if (bytes > limits.bytes) overLimit(`its files hold more than ${limits.bytes} bytes (the limit)`);
        files.push({ path, stats: s, mode });
        count();
      } else if (s.isSymbolicLink()) {
        entries.push({ type: 'symlink', path, target: readlinkSync(abs) });
        count();
      }
      // Sockets, FIFOs and devices are not kept (see snapshot-manifest.ts).
    }
  };
  await walk(root, '');

  const known: KnownFiles = new Map();
  let hashed = 0;
  for (const { path, stats, mode } of files) {
    const before = options.known?.get(path);
    let sha256 = before?.stat === statKey(stats) ? before.sha256 : undefined;
    if (sha256 === undefined) {
      await pause();
      sha256 = await hashFile(join(root, path), stats.size);
      hashed++;
    }
    known.set(path, { sha256, stat: trustedStatKey(stats, rememberedAt) });
    entries.push({ type: 'file', path, sha256, size: stats.size, mode });
  }
  return { manifest: buildManifest(entries), known, hashed };
}
