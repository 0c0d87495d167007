/**
 * Finds the `temporal` CLI that runs Cairn's embedded dev server, building it with Go when needed.
 * Order: TEMPORAL_CLI_PATH → `temporal` on PATH → the cached build → `go install` into that cache
 * → (with internet and no Go) the SDK's cached download. The cache is `.cache/` in a checkout of
 * Cairn, and a per-user folder when Cairn is installed as a dependency (never inside
 * node_modules, which every install replaces). Node-only; not for workflows.
 */
import { execFile } from 'node:child_process';
import { access, constants, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { EphemeralServerExecutable } from '@temporalio/testing';
import { INSTALLED, PACKAGE_ROOT } from './package-root.js';

const run = promisify(execFile);

/** v1.5.1 is the newest CLI tag whose go.mod has no `replace` directive, so `go install` works. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const MODULE = 'github.com/temporalio/cli/cmd/temporal';

/**
 * Where a built CLI is kept: `<checkout>/.cache/temporal-cli/<version>/`, or for an installed
 * Cairn `$XDG_CACHE_HOME/cairn-agents/temporal-cli/<version>/` (default `~/.cache/…`).
 */
export function temporalCliCache(env: NodeJS.ProcessEnv = process.env): string {
  const base = INSTALLED ? join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'cairn-agents') : join(PACKAGE_ROOT, '.cache');
  return join(base, 'temporal-cli', TEMPORAL_CLI_VERSION);
}

export const CACHED_CLI = join(temporalCliCache(), 'temporal');

export class TemporalCliNotFoundError extends Error {
  override readonly name = 'TemporalCliNotFoundError';
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

async function onPath(command: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, command);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** Builds the CLI with `go install` into the project cache; returns its path. Takes minutes cold. */
export async function buildTemporalCli(go: string, log: (line: string) => void = () => {}): Promise<string> {
  await mkdir(dirname(CACHED_CLI), { recursive: true });
  // Build into a private folder and rename, so two concurrent builds never see half a binary.
  const staging = await mkdtemp(join(dirname(CACHED_CLI), 'build-'));
  log(`Building the Temporal CLI ${TEMPORAL_CLI_VERSION} with Go (first run only; a few minutes)…`);
  try {
    await run(go, ['install', `${MODULE}@${TEMPORAL_CLI_VERSION}`], {
      env: { ...process.env, GOBIN: staging, GOFLAGS: '-mod=mod' },
      maxBuffer: 64 * 1024 * 1024,
    });
    await rename(join(staging, 'temporal'), CACHED_CLI);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return CACHED_CLI;
}

/**
 * The executable for `TestWorkflowEnvironment.createLocal`. Throws one message listing every way
 * to get a server when none works.
 */
export async function resolveTemporalCli(
  options: { env?: NodeJS.ProcessEnv; log?: (line: string) => void; allowDownload?: boolean } = {},
): Promise<EphemeralServerExecutable> {
  const env = options.env ?? process.env;
  const explicit = env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (await isExecutable(explicit)) return { type: 'existing-path', path: explicit };
    throw new TemporalCliNotFoundError(`TEMPORAL_CLI_PATH=${explicit} is not an executable file.`);
  }
  const fromPath = await onPath('temporal', env);
  if (fromPath) return { type: 'existing-path', path: fromPath };
  if (await isExecutable(CACHED_CLI)) return { type: 'existing-path', path: CACHED_CLI };

  const go = await onPath('go', env);
  if (go) {
    try {
      return { type: 'existing-path', path: await buildTemporalCli(go, options.log) };
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? String(error);
      throw new TemporalCliNotFoundError(`Building the Temporal CLI with Go failed:\n${stderr.trim()}\n\n${HOW_TO}`);
    }
  }
  if (options.allowDownload ?? true) return { type: 'cached-download' };
  throw new TemporalCliNotFoundError(`No Temporal CLI found.\n${HOW_TO}`);
}

const HOW_TO = `Cairn needs the Temporal CLI for its embedded dev server. Any one of these works:
  - set TEMPORAL_CLI_PATH to a temporal binary;
  - put \`temporal\` on PATH;
  - install Go >= 1.25, and Cairn builds ${MODULE}@${TEMPORAL_CLI_VERSION} into ${dirname(CACHED_CLI)} once;
  - with internet access, the Temporal SDK downloads the CLI itself;
  - or point TEMPORAL_ADDRESS at a running Temporal server.`;
