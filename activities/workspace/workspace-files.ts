/**
 * The file half of a call's `Workspace`: read (line ranges), write, apply a unified diff, list.
 * Every path goes through workspace-paths.ts (nothing outside the root, even through a symlink);
 * every refusal is a ToolFailure `invalid_arguments` whose hint tells the model what to do.
 * A patch applies whole or not at all. Worker side only.
 */
import { chmod, lstat, mkdir, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ToolFailure } from '../../shared/failures/tool-failure.js';
import type { ReadFileResult, Workspace, WorkspaceEntry } from '../../shared/workspace/workspace.js';
import type { WorkspaceLimits } from '../../shared/workspace/workspace-config.js';
import { pathGlob } from './path-glob.js';
import { applyHunks, parsePatch } from './unified-diff.js';
import { type ResolvedPath, resolveInside } from './workspace-paths.js';

export type WorkspaceFiles = Pick<Workspace, 'readFile' | 'writeFile' | 'applyPatch' | 'list'>;

/** Entries a listing returns when the call sets no limit, and the most it may ask for. */
export const LIST_LIMIT = 1_000;
export const LIST_LIMIT_MAX = 10_000;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of `bytes`, or undefined when they are not UTF-8 text (a NUL, or invalid UTF-8). */
export function textOf(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

const invalid = (message: string, advice: string) =>
  ToolFailure.invalidArguments(message, { message: `${message} ${advice}` });

/** File operations on the working copy at `root`, bounded by `limits.fileBytes`. */
export function workspaceFiles(root: string, limits: Required<WorkspaceLimits>): WorkspaceFiles {
  let realRoot: Promise<string> | undefined;
  const resolve = async (path: string): Promise<ResolvedPath> =>
    resolveInside(await (realRoot ??= realpath(root)), path);

  const existingFile = async (path: string, verb: string): Promise<ResolvedPath> => {
    const at = await resolve(path);
    const stats = at.exists ? await stat(at.absolute) : undefined;
    if (stats === undefined)
      throw invalid(
        `Cannot ${verb} ${at.relative || '.'}: it does not exist.`,
        'List the directory to see which files there are.',
      );
    if (!stats.isFile())
      throw invalid(`Cannot ${verb} ${at.relative || '.'}: it is not a file.`, 'Give the path of a file.');
    return at;
  };
  const checkSize = (path: string, bytes: number) => {
    if (bytes > limits.fileBytes)
      throw invalid(
        `${path} would hold ${bytes} bytes, over the workspace's limit of ${limits.fileBytes} bytes a file.`,
        'Nothing was written. Write a smaller file.',
      );
  };

  return {
    async readFile(path, range = {}) {
      const at = await existingFile(path, 'read');
      const bytes = await readFile(at.absolute);
      const text = textOf(bytes);
      const base = { path: at.relative, bytes: bytes.length };
      if (text === undefined) return { ...base, content: '', startLine: 0, endLine: 0, totalLines: 0, binary: true };
      const lines = text === '' ? [] : text.split('\n');
      if (text.endsWith('\n')) lines.pop();
      const total = lines.length;
      const startLine = range.startLine ?? 1;
      const endLine = Math.min(range.endLine ?? total, total);
      if (!Number.isSafeInteger(startLine) || startLine < 1 || (total > 0 && startLine > total))
        throw invalid(
          `${at.relative} has ${total} lines; startLine ${startLine} is outside them.`,
          `Ask for lines 1 to ${total}.`,
        );
      if (!Number.isSafeInteger(endLine) || (range.endLine !== undefined && range.endLine < startLine))
        throw invalid(`endLine ${range.endLine} is before startLine ${startLine}.`, 'Give endLine ≥ startLine.');
      const content = lines.slice(startLine - 1, endLine).join('\n');
      return { ...base, content, startLine, endLine, totalLines: total, binary: false } satisfies ReadFileResult;
    },

    async writeFile(path, content, options = {}) {
      const at = await resolve(path);
      if (at.relative === '') throw invalid('Cannot write the workspace root.', 'Give the path of a file.');
      const stats = at.exists ? await stat(at.absolute) : undefined;
      if (stats && !stats.isFile())
        throw invalid(`Cannot write ${at.relative}: it is not a file.`, 'Give the path of a file.');
      if (stats && options.createOnly)
        throw invalid(
          `${at.relative} already exists.`,
          'Read it and change it with a patch, or write it without createOnly.',
        );
      const data = Buffer.from(content, 'utf8');
      checkSize(at.relative, data.length);
      await mkdir(dirname(at.absolute), { recursive: true });
      await writeFile(at.absolute, data, { flag: options.createOnly ? 'wx' : 'w' });
      return { bytes: data.length, created: stats === undefined };
    },

    async applyPatch(patch) {
      const files = parsePatch(String(patch));
      // Every file's new text first (by real location); nothing is written until all of them apply.
      const next = new Map<string, { relative: string; text: string | null; mode?: 0o644 | 0o755 }>();
      const textAt = async (at: ResolvedPath): Promise<string | null> => {
        const pending = next.get(at.absolute);
        if (pending) return pending.text;
        if (!at.exists) return null;
        const text = textOf(await readFile((await existingFile(at.relative, 'patch')).absolute));
        if (text === undefined)
          throw invalid(`${at.relative} is a binary file; a patch cannot change it.`, 'Write the file whole instead.');
        return text;
      };
      const touched: string[] = [];
      for (const file of files) {
        const shown = file.newPath ?? file.oldPath ?? '';
        if (file.binary)
          throw invalid(
            `The patch changes ${shown} as a binary file.`,
            'Binary patches are not supported; write the file instead.',
          );
        const source = file.oldPath === null ? undefined : await resolve(file.oldPath);
        const target = file.newPath === null ? undefined : await resolve(file.newPath);
        const before = source ? await textAt(source) : null;
        if (source && before === null)
          throw invalid(
            `The patch changes ${source.relative}, which does not exist.`,
            'Nothing was changed. List the files to find the right path, or create the file with "--- /dev/null".',
          );
        if (!source && target && (await textAt(target)) !== null)
          throw invalid(
            `The patch creates ${target.relative}, which already exists.`,
            'Nothing was changed. Read the file and patch it instead.',
          );
        const after = applyHunks(shown, before, file.hunks);
        if (!target) {
          if (after !== '')
            throw invalid(
              `The patch deletes ${source!.relative}, but its "-" lines are not the whole file.`,
              'Nothing was changed. Read the file and list every line as removed, or delete it with a command.',
            );
          next.set(source!.absolute, { relative: source!.relative, text: null });
          touched.push(source!.relative);
          continue;
        }
        checkSize(target.relative, Buffer.byteLength(after));
        if (source && source.absolute !== target.absolute) {
          next.set(source.absolute, { relative: source.relative, text: null });
          touched.push(source.relative);
        }
        next.set(target.absolute, { relative: target.relative, text: after, ...(file.mode && { mode: file.mode }) });
        touched.push(target.relative);
      }
      for (const [absolute, change] of next) {
        if (change.text === null) await rm(absolute, { force: true });
        else {
          await mkdir(dirname(absolute), { recursive: true });
          await writeFile(absolute, change.text);
          if (change.mode) await chmod(absolute, change.mode);
        }
      }
      return { files: [...new Set(touched)] };
    },

    async list(path = '', options = {}) {
      const at = await resolve(path);
      const limit = Math.min(Math.max(1, Math.floor(options.limit ?? LIST_LIMIT)), LIST_LIMIT_MAX);
      const glob = options.pattern ? pathGlob(options.pattern) : undefined;
      const prefix = at.relative === '' ? '' : `${at.relative}/`;
      // A pattern is matched against the path from the root and against the path from `path`.
      const matches = (full: string) => !glob || glob(full) || glob(full.slice(prefix.length));
      const entries: WorkspaceEntry[] = [];
      if (!at.exists) throw invalid(`${at.relative} does not exist.`, 'List the workspace root to see what there is.');
      const top = await stat(at.absolute);
      if (!top.isDirectory())
        return { entries: [{ path: at.relative, type: 'file', size: top.size }], truncated: false };
      let truncated = false;
      const walk = async (dir: string, shown: string): Promise<void> => {
        const names = (await readdir(dir)).sort();
        for (const name of names) {
          if (truncated) return;
          const full = shown + name;
          const stats = await lstat(`${dir}/${name}`);
          const type = stats.isDirectory() ? 'dir' : stats.isSymbolicLink() ? 'symlink' : 'file';
          if (matches(full)) {
            if (entries.length === limit) {
              truncated = true;
              return;
            }
            entries.push({ path: full, type, size: type === 'dir' ? 0 : stats.size });
          }
          if (type === 'dir') await walk(`${dir}/${name}`, `${full}/`);
        }
      };
      await walk(at.absolute, prefix);
      return { entries, truncated };
    },
  };
}
