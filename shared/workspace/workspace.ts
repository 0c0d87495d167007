/**
 * What a workspace tool's `execute` gets as `context.workspace`: the run's files at the snapshot
 * the call started from, in a working copy on this worker, and a sandbox to run commands in.
 * Types only; the worker implements it (activities/workspace/). Workflow-safe to import.
 *
 * Every path is relative to the workspace root; `..`, absolute paths and symlinks that lead out
 * are refused with a ToolFailure `invalid_arguments`. What a call changes is committed as the
 * run's next snapshot only when the call ends `ok`; a failed call leaves the workspace as it was.
 */

/** One entry of a listing. */
export interface WorkspaceEntry {
  readonly path: string;
  readonly type: 'file' | 'dir' | 'symlink';
  readonly size: number;
}

export interface ReadFileResult {
  readonly path: string;
  /** The lines asked for (1-based, inclusive), joined with `\n`; empty for a binary file. */
  readonly content: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly totalLines: number;
  readonly bytes: number;
  /** True when the file is not UTF-8 text: `content` is empty. */
  readonly binary: boolean;
}

/** A command: an argv, or a line for `/bin/sh -c`. */
export interface WorkspaceCommand {
  readonly argv?: readonly string[];
  readonly shell?: string;
  /** Relative to the workspace root. */
  readonly cwd?: string;
  readonly timeoutMs?: number;
  readonly env?: Readonly<Record<string, string>>;
}

/** A command that ran to its end (any exit code). Timeouts and limits throw a ToolFailure instead. */
export interface CommandResult {
  readonly exitCode: number;
  /** The last `outputTailBytes` of each stream, UTF-8 (cut at a character boundary). */
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  /** True when `stdout` or `stderr` is a tail of more. */
  readonly truncated: boolean;
  readonly durationMs: number;
}

export interface Workspace {
  /** The working copy's absolute path on this worker (for tools of your own; it is gone after the call). */
  readonly root: string;
  /** The snapshot this call started from. */
  readonly digest: string;
  readFile(path: string, range?: { readonly startLine?: number; readonly endLine?: number }): Promise<ReadFileResult>;
  /** Writes UTF-8 text, making parent directories; `createOnly` refuses an existing file. */
  writeFile(
    path: string,
    content: string,
    options?: { readonly createOnly?: boolean },
  ): Promise<{ bytes: number; created: boolean }>;
  /** Applies a unified diff (git's or diff -u's); all files or none. */
  applyPatch(patch: string): Promise<{ readonly files: readonly string[] }>;
  /** Entries under `path` (default the root), depth-first, sorted; `pattern` is a glob on the relative path. */
  list(
    path?: string,
    options?: { readonly pattern?: string; readonly limit?: number },
  ): Promise<{ readonly entries: readonly WorkspaceEntry[]; readonly truncated: boolean }>;
  /** Runs a command in the sandbox, in the working copy. */
  run(command: WorkspaceCommand): Promise<CommandResult>;
}
