/**
 * Where a path a model gives lands in a working copy, refusing anything that leads out: absolute
 * paths, `..` past the root, and symlinks (anywhere along the path) whose real location is outside
 * the root or nowhere. A refusal is a ToolFailure `invalid_arguments` the model can act on.
 * Worker side only.
 */
import { lstat, realpath } from 'node:fs/promises';
import { posix, sep } from 'node:path';
import { ToolFailure } from '../../shared/failures/tool-failure.js';

export interface ResolvedPath {
  /** The path as the model should see it: normalized, relative to the root ('' for the root). */
  readonly relative: string;
  /** The real absolute location (symlinks resolved), inside the root. */
  readonly absolute: string;
  /** False when nothing is there yet (its missing tail lies below a real directory inside the root). */
  readonly exists: boolean;
}

const refuse = (path: string, why: string): never => {
  throw ToolFailure.invalidArguments(`Path ${JSON.stringify(path)} ${why}.`, {
    message: `Path ${JSON.stringify(path)} ${why}. Use a path relative to the workspace root, inside it (e.g. "src/index.ts").`,
  });
};

/** The normalized relative form of `path`, or a refusal when it is absolute or climbs out. */
export function normalizeRelative(path: string): string {
  if (typeof path !== 'string' || path.includes('\0')) refuse(String(path), 'is not a valid path');
  if (path.startsWith('/') || path === '~' || path.startsWith('~/')) refuse(path, 'is absolute');
  const normal = posix.normalize(path === '' ? '.' : path).replace(/\/+$/, '');
  if (normal === '..' || normal.startsWith('../')) refuse(path, 'leads outside the workspace');
  return normal === '.' ? '' : normal;
}

/**
 * Resolves `path` inside `root` (the root's real path), one segment at a time: a symlink along the
 * way is followed only when its real target is inside the root; a dangling one is refused (writing
 * through it would create its target wherever it points).
 */
export async function resolveInside(root: string, path: string): Promise<ResolvedPath> {
  const relative = normalizeRelative(path);
  const inside = (real: string) => real === root || real.startsWith(root + sep);
  let current = root;
  const segments = relative === '' ? [] : relative.split('/');
  for (let i = 0; i < segments.length; i++) {
    const candidate = `${current}${sep}${segments[i]}`;
    const stats = await lstat(candidate).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw error;
    });
    if (stats === undefined) {
      if (i > 0 && !(await lstat(current)).isDirectory())
        refuse(path, `goes through ${segments.slice(0, i).join('/')}, which is not a directory`);
      return { relative, absolute: [candidate, ...segments.slice(i + 1)].join(sep), exists: false };
    }
    if (stats.isSymbolicLink()) {
      const real = await realpath(candidate).catch(() => undefined);
      if (real === undefined) refuse(path, 'goes through a symlink that points nowhere');
      if (!inside(real!)) refuse(path, 'goes through a symlink that points outside the workspace');
      current = real!;
    } else current = candidate;
  }
  return { relative, absolute: current, exists: true };
}
