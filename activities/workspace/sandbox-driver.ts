/**
 * The small interface a command sandbox implements: the local bubblewrap driver
 * (bubblewrap-driver.ts, the default) and any hosted one (E2B, Vercel Sandbox, Daytona, Modal,
 * Cloudflare) that a user plugs in. Worker only (drivers start processes or call services).
 *
 * What every driver promises, whatever runs the command:
 * - the command sees the working copy at `/workspace` (its `root` on the worker, or the hosted
 *   sandbox's copy of it) and may write only there and in a private `/tmp`;
 * - it sees no variable of the worker's environment: only PATH, HOME=/workspace, LANG=C.UTF-8,
 *   TMPDIR=/tmp and the call's `env`;
 * - no network unless `network` is true;
 * - `limits` bound its processes, memory, file size, wall time and output;
 * - a non-zero exit (or a death by signal, as 128 + the signal's number) is a `CommandResult`, not a
 *   throw; a timeout throws `ToolFailure('timeout')`, too much output `ToolFailure('invalid_arguments')`,
 *   both with a hint for the model; `signal` aborting kills everything and rejects with the signal's
 *   reason (an AbortError when it has none);
 * - when `run` settles, no process of the command is left.
 *
 * `checkCommand` is the validation every driver shares, so all refuse the same calls the same way.
 */
import type { WorkspaceLimits } from '../../shared/workspace/workspace-config.js';
import type { CommandResult, WorkspaceCommand } from '../../shared/workspace/workspace.js';
import { ToolFailure } from '../../shared/failures/tool-failure.js';

export interface SandboxRunInput {
  /** The working copy's absolute directory on this worker; the command sees it as `/workspace`. */
  readonly root: string;
  readonly command: WorkspaceCommand;
  readonly limits: Required<WorkspaceLimits>;
  /** The command may reach the network (the agent's `workspace.network`). */
  readonly network: boolean;
  /** Aborts the command (the activity's cancellation): everything is killed. */
  readonly signal: AbortSignal;
}

export interface SandboxDriver {
  /** For logs and errors, e.g. `bubblewrap`. */
  readonly name: string;
  /** Undefined when the driver can run commands here; otherwise one line naming what to install or allow. */
  check(): Promise<string | undefined>;
  /** Runs one command to its end; see the promises above. Not idempotent: the caller discards a failed call's changes. */
  run(input: SandboxRunInput): Promise<CommandResult>;
}

/** A command as a driver executes it: checked, with its defaults applied. */
export interface CheckedCommand {
  /** What to execute: the call's argv, or `['/bin/sh', '-c', shell]`. */
  readonly argv: readonly string[];
  /** Relative to the workspace root, normalised, `''` for the root itself; never leads out. */
  readonly cwd: string;
  /** The wall-time bound: the call's timeoutMs (else limits.commandMs), at most limits.maxCommandMs. */
  readonly timeoutMs: number;
  readonly env: Readonly<Record<string, string>>;
}

/** The environment every sandboxed command starts with, before the call's `env`. */
export const SANDBOX_BASE_ENV: Readonly<Record<string, string>> = Object.freeze({
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/workspace',
  LANG: 'C.UTF-8',
  TMPDIR: '/tmp',
});

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Validates a command (argv xor shell, a cwd that stays inside, env names) and applies the
 * defaults. Throws `ToolFailure('invalid_arguments')` with a hint the model can act on.
 * Deterministic; no I/O (a driver that sees the files also checks that `cwd` exists and that no
 * symlink on the way leads out).
 *
 * Env: any POSIX name is accepted, LD_PRELOAD included — the command runs code of its choosing
 * anyway, so the sandbox (not the environment) is the boundary.
 */
export function checkCommand(command: WorkspaceCommand, limits: Required<WorkspaceLimits>): CheckedCommand {
  const refuse = (message: string, hint: string): never => {
    throw ToolFailure.invalidArguments(message, { message: hint });
  };
  const hasArgv = command.argv !== undefined;
  const hasShell = command.shell !== undefined;
  if (hasArgv === hasShell)
    refuse(
      'A command needs exactly one of argv or shell.',
      'Pass argv (e.g. ["npm", "test"]) or shell (e.g. "npm test 2>&1 | tail -50"), not both.',
    );
  let argv: readonly string[];
  if (hasArgv) {
    const list = command.argv as readonly unknown[];
    if (!Array.isArray(list) || list.length === 0 || list.some((a) => typeof a !== 'string' || a.includes('\0')))
      refuse('argv must be a non-empty list of strings without NUL characters.', 'Pass argv like ["ls", "-la"].');
    if ((list[0] as string) === '') refuse('argv[0] is empty.', 'argv[0] names the program, e.g. "ls".');
    argv = list as readonly string[];
  } else {
    if (typeof command.shell !== 'string' || command.shell.trim() === '' || command.shell.includes('\0'))
      refuse('shell must be a non-empty command line.', 'Pass shell like "make test 2>&1 | tail -100".');
    argv = ['/bin/sh', '-c', command.shell as string];
  }
  const cwd = relativeCwd(command.cwd ?? '');
  if (cwd === undefined)
    refuse(
      `The working directory ${JSON.stringify(command.cwd)} is not inside the workspace.`,
      'Give cwd relative to the workspace root, without "..", e.g. "src" or "packages/app"; omit it for the root.',
    );
  let timeoutMs = limits.commandMs;
  if (command.timeoutMs !== undefined) {
    if (!Number.isFinite(command.timeoutMs) || command.timeoutMs <= 0)
      refuse(
        `timeoutMs must be a positive number of milliseconds (got ${command.timeoutMs}).`,
        `Omit timeoutMs for the default ${limits.commandMs} ms, or pass up to ${limits.maxCommandMs}.`,
      );
    timeoutMs = Math.ceil(command.timeoutMs);
  }
  timeoutMs = Math.min(timeoutMs, limits.maxCommandMs);
  const env: Record<string, string> = { ...SANDBOX_BASE_ENV };
  for (const [name, value] of Object.entries(command.env ?? {})) {
    if (!ENV_NAME.test(name))
      refuse(`The environment variable name ${JSON.stringify(name)} is not valid.`, 'Use names like MY_VAR.');
    if (typeof value !== 'string' || value.includes('\0'))
      refuse(`The value of ${name} must be a string without NUL characters.`, 'Pass env values as strings.');
    env[name] = value;
  }
  return { argv, cwd: cwd as string, timeoutMs, env };
}

/** `cwd` normalised relative to the root (`''` for the root), or undefined when it is absolute or leads out. */
function relativeCwd(cwd: unknown): string | undefined {
  if (typeof cwd !== 'string' || cwd.includes('\0') || cwd.startsWith('/')) return undefined;
  const parts: string[] = [];
  for (const part of cwd.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}
