/**
 * What a worker needs to serve workspace tools: the checkouts (snapshots in the run store, working
 * copies on this worker) and the sandbox commands run in. `openWorkspace` gives one call its
 * `context.workspace`; `closeWorkspace` commits what an `ok` call changed, or throws it away.
 * Worker side only. See docs/workspaces.md.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunStore } from '../../shared/storage/run-store.js';
import type { Workspace } from '../../shared/workspace/workspace.js';
import type { WorkspaceCallInput } from '../../shared/workspace/workspace-call.js';
import { fileRunStore } from '../storage/file-run-store.js';
import { bubblewrapDriver } from './bubblewrap-driver.js';
import type { SandboxDriver } from './sandbox-driver.js';
import { workspaceCheckouts, type Checkout, type WorkspaceCheckouts } from './workspace-checkouts.js';
import { workspaceFiles } from './workspace-files.js';

export interface WorkspaceRuntime {
  readonly checkouts: WorkspaceCheckouts;
  readonly driver: SandboxDriver;
}

export interface WorkspaceRuntimeOptions {
  /** Where snapshots live: the fleet's run store. Without one, a directory under the OS temp dir (this machine only). */
  readonly store?: RunStore | undefined;
  /** Runs commands; default bubblewrap (activities/workspace/bubblewrap-driver.ts). */
  readonly driver?: SandboxDriver | undefined;
  /** Where working copies and the local blob cache go. */
  readonly directory?: string | undefined;
  /** How long a working copy is kept after its call for the next one; default 30 s. */
  readonly idleMs?: number | undefined;
}

/** The store to use when the worker has none: one machine's directory, said once at start. */
export function localWorkspaceStore(): RunStore {
  return fileRunStore({ directory: join(tmpdir(), 'cairn-workspaces', 'store') });
}

export function workspaceRuntime(options: WorkspaceRuntimeOptions = {}): WorkspaceRuntime {
  return {
    checkouts: workspaceCheckouts({
      store: options.store ?? localWorkspaceStore(),
      ...(options.directory !== undefined && { directory: options.directory }),
      ...(options.idleMs !== undefined && { idleMs: options.idleMs }),
    }),
    driver: options.driver ?? bubblewrapDriver(),
  };
}

/** One call's workspace: its working copy, as the `Workspace` a tool's `execute` reads. */
export function workspaceOf(
  checkout: Checkout,
  input: WorkspaceCallInput,
  driver: SandboxDriver,
  signal: AbortSignal,
): Workspace {
  const files = workspaceFiles(checkout.root, input.limits);
  return {
    root: checkout.root,
    digest: checkout.digest,
    readFile: (path, range) => files.readFile(path, range),
    writeFile: (path, content, options) => files.writeFile(path, content, options),
    applyPatch: (patch) => files.applyPatch(patch),
    list: (path, options) => files.list(path, options),
    run: (command) =>
      driver.run({ root: checkout.root, command, limits: input.limits, network: input.network, signal }),
  };
}

/**
 * Ends a call's checkout: an `ok` call's changes become the run's next snapshot (its digest is
 * returned); anything else leaves the snapshot it started from. A commit the limits refuse is a
 * ToolFailure, and the workspace stays as it was.
 */
export async function closeWorkspace(checkout: Checkout, ok: boolean): Promise<string> {
  // A commit that fails throws its copy away itself.
  if (ok) return checkout.commit();
  await checkout.discard();
  return checkout.digest;
}
