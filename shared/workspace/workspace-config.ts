/**
 * A run's workspace, as an agent declares it: where its first files come from, what bounds it, and
 * whether its commands reach the network. Plain data; workflow-safe, deterministic.
 * See docs/workspaces.md.
 */
import { DefinitionError } from '../failures/definition-error.js';

/** Where a run's workspace starts: a directory on the worker, a tar archive, a snapshot digest, or nothing. */
export type WorkspaceSource =
  | { readonly dir: string }
  | { readonly archive: string }
  | { readonly snapshot: string }
  | { readonly empty: true };

/** Bounds on a workspace and on each command run in it. */
export interface WorkspaceLimits {
  /** All files' bytes together. Default 256 MiB. */
  readonly bytes?: number;
  /** How many files. Default 20,000. */
  readonly files?: number;
  /** One file's bytes (a command writing more gets EFBIG). Default 64 MiB. */
  readonly fileBytes?: number;
  /** A command's wall time when the call sets none, and the most one may ask for. Default 60 s / 10 min. */
  readonly commandMs?: number;
  readonly maxCommandMs?: number;
  /** A command's address space. Default 8 GiB (Node reserves much it never touches). */
  readonly memoryBytes?: number;
  /** Processes a command may have at once. Default 256. */
  readonly processes?: number;
  /** stdout and stderr bytes a command may print before it is stopped. Default 64 MiB. */
  readonly outputBytes?: number;
  /** The tail of stdout and of stderr the model reads. Default 16 KiB each. */
  readonly outputTailBytes?: number;
}

export interface WorkspaceConfig {
  /** Default `{ empty: true }`. A run's input may start it from a snapshot instead. */
  readonly from?: WorkspaceSource;
  readonly limits?: WorkspaceLimits;
  /** Commands reach the network. Default false: their own network namespace with no interfaces. */
  readonly network?: boolean;
}

export const DEFAULT_WORKSPACE_LIMITS: Required<WorkspaceLimits> = Object.freeze({
  bytes: 256 * 1024 * 1024,
  files: 20_000,
  fileBytes: 64 * 1024 * 1024,
  commandMs: 60_000,
  maxCommandMs: 600_000,
  memoryBytes: 8 * 1024 * 1024 * 1024,
  processes: 256,
  outputBytes: 64 * 1024 * 1024,
  outputTailBytes: 16 * 1024,
});

/** A snapshot's digest: `sha256:` and 64 hex digits (activities/workspace/snapshot-manifest.ts). */
export const SNAPSHOT_DIGEST = /^sha256:[0-9a-f]{64}$/;

/** A workspace config with every default filled in. */
export interface CheckedWorkspaceConfig {
  readonly from: WorkspaceSource;
  readonly limits: Required<WorkspaceLimits>;
  readonly network: boolean;
}

/** The config with its defaults, checked; throws DefinitionError naming the agent and the field. */
export function checkWorkspaceConfig(agent: string, config: WorkspaceConfig): CheckedWorkspaceConfig {
  const bad = (what: string): never => {
    throw new DefinitionError('invalid_agent', `Agent ${agent}'s workspace ${what}.`);
  };
  if (typeof config !== 'object' || config === null) bad('must be an object: { from, limits, network }');
  const from = config.from ?? { empty: true as const };
  if ('dir' in from ? typeof from.dir !== 'string' || from.dir === '' : false) bad('from.dir must be a path');
  if ('archive' in from ? typeof from.archive !== 'string' || from.archive === '' : false)
    bad('from.archive must be a path to a .tar, .tar.gz or .tgz file');
  if ('snapshot' in from && !SNAPSHOT_DIGEST.test(String(from.snapshot)))
    bad('from.snapshot must be a digest like sha256:<64 hex digits>');
  if (!('dir' in from || 'archive' in from || 'snapshot' in from || ('empty' in from && from.empty === true)))
    bad('from must be { dir }, { archive }, { snapshot } or { empty: true }');
  const limits = { ...DEFAULT_WORKSPACE_LIMITS, ...(config.limits ?? {}) };
  for (const [key, value] of Object.entries(limits))
    if (!Number.isSafeInteger(value) || value <= 0) bad(`limit ${key} must be a positive whole number (got ${value})`);
  if (config.network !== undefined && typeof config.network !== 'boolean') bad('network must be true or false');
  return Object.freeze({ from, limits: Object.freeze(limits), network: config.network ?? false });
}
