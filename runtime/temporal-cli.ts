/**
 * Finds the `temporal` CLI that runs Cairn's embedded dev server, building it with Go when needed.
 * Order: TEMPORAL_CLI_PATH → `temporal` on PATH → the project's cached build → `go install` into
 * that cache → (with internet and no Go) the SDK's cached download. Node-only; not for workflows.
 */
import { execFile } from 'node:child_process';
import { access, constants, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { EphemeralServerExecutable } from '@temporalio/testing';

const run = promisify(execFile);

/** v1.5.1 is the newest CLI tag whose go.mod has no `replace` directive, so `go install` works. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const MODULE = 'github.com/temporalio/cli/cmd/temporal';
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CACHED_CLI = join(PROJECT_ROOT, '.cache', 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');

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
  - install Go >= 1.25, and Cairn builds ${MODULE}@${TEMPORAL_CLI_VERSION} into .cache/ once;
  - with internet access, the Temporal SDK downloads the CLI itself;
  - or point TEMPORAL_ADDRESS at a running Temporal server.`;
