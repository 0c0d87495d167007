/**
 * A workspace snapshot's manifest: every directory, file and symlink of the tree, sorted by path,
 * written as canonical JSON; the snapshot's digest is `sha256:` and the SHA-256 of that text. Files
 * are named by the SHA-256 of their content (snapshot-store.ts keeps the content).
 *
 * What a snapshot keeps: regular files (content and the exec bit: mode 0o644 or 0o755), symlinks
 * (their target, verbatim, never followed) and every directory (so an empty `mkdir` survives; all
 * directories are recorded, which also lets a reader check that no entry sits below a symlink).
 * What it drops: owners, times, other permission bits, and sockets, FIFOs and devices.
 * Worker side only (node:crypto); deterministic.
 */
import { createHash } from 'node:crypto';
import { SNAPSHOT_DIGEST } from '../../shared/workspace/workspace-config.js';

/** A file's mode as a snapshot records it. */
export type SnapshotMode = 0o644 | 0o755;

export type ManifestEntry =
  | { readonly type: 'dir'; readonly path: string }
  | {
      readonly type: 'file';
      readonly path: string;
      readonly sha256: string;
      readonly size: number;
      readonly mode: SnapshotMode;
    }
  | { readonly type: 'symlink'; readonly path: string; readonly target: string };

export interface Manifest {
  readonly digest: string;
  /** Sorted by path (UTF-16 code unit order), no duplicates; a parent directory comes before its entries. */
  readonly entries: readonly ManifestEntry[];
  /** The canonical text the digest is taken of. */
  readonly text: string;
}

const VERSION = 1;
const HEX64 = /^[0-9a-f]{64}$/;

/** The SHA-256 of `data`, hex. */
export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** The hex part of a `sha256:` digest. */
export function digestHex(digest: string): string {
  if (!SNAPSHOT_DIGEST.test(digest)) throw new Error(`Not a snapshot digest: ${JSON.stringify(digest)}.`);
  return digest.slice('sha256:'.length);
}

/** Builds a manifest from entries in any order; refuses duplicates and unsafe paths. */
export function buildManifest(entries: readonly ManifestEntry[]): Manifest {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  checkEntries(sorted);
  // Tuples keep the text small (10,000 files ≈ 1 MB) and leave no key order to disagree on.
  const rows = sorted.map((e) =>
    e.type === 'dir'
      ? ['d', e.path]
      : e.type === 'file'
        ? ['f', e.path, e.sha256, e.size, e.mode]
        : ['l', e.path, e.target],
  );
  const text = JSON.stringify({ cairnSnapshot: VERSION, entries: rows });
  return { digest: `sha256:${sha256Hex(text)}`, entries: sorted, text };
}

/**
 * Reads a manifest's text back and checks it is the one `digest` names and that it is well formed
 * (safe relative paths, sorted, every entry's parent a recorded directory). Throws an Error
 * otherwise: a manifest that does not match is an infrastructure fault, never a workspace.
 */
export function parseManifest(digest: string, text: string): Manifest {
  if (`sha256:${sha256Hex(text)}` !== digest)
    throw new Error(`The stored manifest of snapshot ${digest} does not match its digest.`);
  const bad = (why: string): never => {
    throw new Error(`The manifest of snapshot ${digest} is malformed: ${why}.`);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    bad('not JSON');
  }
  const { cairnSnapshot, entries } = (parsed ?? {}) as { cairnSnapshot?: unknown; entries?: unknown };
  if (cairnSnapshot !== VERSION || !Array.isArray(entries)) bad(`not version ${VERSION}`);
  const out = (entries as unknown[]).map((row): ManifestEntry => {
    if (!Array.isArray(row) || typeof row[1] !== 'string') return bad(`entry ${JSON.stringify(row)}`);
    const [kind, path, a, b, c] = row as [unknown, string, unknown, unknown, unknown];
    if (kind === 'd' && row.length === 2) return { type: 'dir', path };
    if (kind === 'l' && row.length === 3 && typeof a === 'string' && a !== '')
      return { type: 'symlink', path, target: a };
    if (
      kind === 'f' &&
      row.length === 5 &&
      typeof a === 'string' &&
      HEX64.test(a) &&
      Number.isSafeInteger(b) &&
      (b as number) >= 0 &&
      (c === 0o644 || c === 0o755)
    )
      return { type: 'file', path, sha256: a, size: b as number, mode: c };
    return bad(`entry ${JSON.stringify(row).slice(0, 200)}`);
  });
  try {
    checkEntries(out);
  } catch (error) {
    bad((error as Error).message);
  }
  return { digest, entries: out, text };
}

/** Throws unless `sorted` is strictly sorted, its paths safe and every parent a recorded directory. */
function checkEntries(sorted: readonly ManifestEntry[]): void {
  const dirs = new Set<string>();
  let previous = '';
  for (const entry of sorted) {
    const { path } = entry;
    if (!isSafeRelativePath(path)) throw new Error(`unsafe path ${JSON.stringify(path)}`);
    if (previous !== '' && !(previous < path))
      throw new Error(`paths out of order or repeated at ${JSON.stringify(path)}`);
    const slash = path.lastIndexOf('/');
    if (slash > 0 && !dirs.has(path.slice(0, slash)))
      throw new Error(`${JSON.stringify(path)} is not inside a recorded directory`);
    if (entry.type === 'dir') dirs.add(path);
    previous = path;
  }
}

/** A relative path of non-empty segments, none `.` or `..`, no NUL. */
export function isSafeRelativePath(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\0')) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
