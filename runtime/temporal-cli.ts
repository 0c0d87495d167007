/**
 * Finds the `temporal` CLI that runs Cairn's embedded dev server, building it with Go when needed:
 * once per machine. Order: TEMPORAL_CLI_PATH → `temporal` on PATH → this checkout's `.cache/`
 * copy (a checkout of Cairn built there before) → the machine's cache,
 * `$XDG_CACHE_HOME/cairn-agents/temporal-cli/<version>/` (default `~/.cache/…`), shared by every
 * checkout, every install of a tarball and every starter project on the machine → `go install`
 * into that cache, with a progress line every 30 s → (with internet and no Go) the SDK's cached
 * download. Never inside node_modules, which every install replaces. Node-only; not for workflows.
 */
import { spawn } from 'node:child_process';
import { access, constants, mkdir, mkdtemp, realpath, rename, rm, symlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { EphemeralServerExecutable } from '@temporalio/testing';
import { INSTALLED, PACKAGE_ROOT } from './package-root.js';

/** v1.5.1 is the newest CLI tag whose go.mod has no `replace` directive, so `go install` works. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const MODULE = 'github.com/temporalio/cli/cmd/temporal';

/** How often a build in progress says so. */
const PROGRESS_EVERY_MS = 30_000;

/** The machine's cache folder for the CLI: `$XDG_CACHE_HOME/cairn-agents/temporal-cli/<version>/` (default `~/.cache/…`). */
export function temporalCliCache(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'cairn-agents', 'temporal-cli', TEMPORAL_CLI_VERSION);
}

/** Where the machine's cached CLI is. */
export const CACHED_CLI = join(temporalCliCache(), 'temporal');

/** A checkout's own copy (`<checkout>/.cache/temporal-cli/<version>/temporal`), which checkouts built before the machine cache; none when installed. */
export const CHECKOUT_CLI: string | undefined = INSTALLED
  ? undefined
  : join(PACKAGE_ROOT, '.cache', 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');

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

/** Writes a line on stderr: a build must never be silent, whoever asked for the CLI. */
const toStderr = (line: string) => void process.stderr.write(`${line}\n`);

export interface BuildOptions {
  /** Where the progress lines go (default stderr). */
  readonly log?: (line: string) => void;
  /** The environment of `go install` (GOCACHE, GOMODCACHE, GOPROXY…); default this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /** The cache folder to build into (default the machine's, temporalCliCache()). */
  readonly cacheDir?: string;
  /** A line said right after the first, for who waits on the build (startTestEnvironment: its hook's timeout). */
  readonly note?: string;
}

/**
 * Builds the CLI with `go install` into the machine cache; returns its path. Takes minutes cold
 * (about 4 with empty Go caches), saying so at once and every 30 s after, so that nobody waits on
 * silence. Two builds at once are safe: each builds into a private folder and renames.
 */
export async function buildTemporalCli(go: string, options: BuildOptions = {}): Promise<string> {
  const log = options.log ?? toStderr;
  const dir = options.cacheDir ?? dirname(CACHED_CLI);
  const target = join(dir, 'temporal');
  await mkdir(dir, { recursive: true });
  const staging = await mkdtemp(join(dir, 'build-'));
  const started = Date.now();
  log(
    `Building the Temporal CLI ${TEMPORAL_CLI_VERSION} with Go, once for this machine: 4 to 16 minutes with empty Go caches, the longer on a busy machine (into ${dir})…`,
  );
  if (options.note) log(options.note);
  const progress = setInterval(
    () => log(`  still building the Temporal CLI… ${Math.round((Date.now() - started) / 1000)} s`),
    PROGRESS_EVERY_MS,
  );
  try {
    await goInstall(go, { ...(options.env ?? process.env), GOBIN: staging, GOFLAGS: '-mod=mod' });
    await rename(join(staging, 'temporal'), target);
  } finally {
    clearInterval(progress);
    await rm(staging, { recursive: true, force: true });
  }
  log(`Built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)} s: ${target}`);
  return target;
}

/** `go install <module>@<version>`; rejects with Go's stderr. */
function goInstall(go: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(go, ['install', `${MODULE}@${TEMPORAL_CLI_VERSION}`], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-64 * 1024)));
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(Object.assign(new Error(`go install exited with ${code ?? signal}`), { stderr })),
    );
  });
}

/**
 * The executable for `TestWorkflowEnvironment.createLocal`. Throws one message listing every way
 * to get a server when none works. A build, when one is needed, logs its progress (default stderr).
 */
export async function resolveTemporalCli(
  options: { env?: NodeJS.ProcessEnv; log?: (line: string) => void; allowDownload?: boolean; buildNote?: string } = {},
): Promise<EphemeralServerExecutable> {
  const env = options.env ?? process.env;
  const explicit = env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (await isExecutable(explicit)) return { type: 'existing-path', path: explicit };
    throw new TemporalCliNotFoundError(`TEMPORAL_CLI_PATH=${explicit} is not an executable file.`);
  }
  const fromPath = await onPath('temporal', env);
  if (fromPath) return { type: 'existing-path', path: fromPath };
  const machine = join(temporalCliCache(env), 'temporal');
  if (CHECKOUT_CLI && (await isExecutable(CHECKOUT_CLI))) {
    // Share it: the machine cache points at it, so installs of this checkout's tarball and the
    // starters made from it find it instead of building a second copy.
    if (!(await isExecutable(machine))) await shareCheckoutCopy(CHECKOUT_CLI, machine);
    return { type: 'existing-path', path: CHECKOUT_CLI };
  }
  if (await isExecutable(machine)) return { type: 'existing-path', path: machine };

  const go = await onPath('go', env);
  if (go) {
    try {
      return {
        type: 'existing-path',
        path: await buildTemporalCli(go, {
          ...(options.log && { log: options.log }),
          ...(options.buildNote && { note: options.buildNote }),
          env,
          cacheDir: dirname(machine),
        }),
      };
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr || String(error);
      throw new TemporalCliNotFoundError(`Building the Temporal CLI with Go failed:\n${stderr.trim()}\n\n${HOW_TO}`);
    }
  }
  if (options.allowDownload ?? true) return { type: 'cached-download' };
  throw new TemporalCliNotFoundError(`No Temporal CLI found.\n${HOW_TO}`);
}

async function shareCheckoutCopy(checkoutCopy: string, machine: string): Promise<void> {
  try {
    await mkdir(dirname(machine), { recursive: true });
    await rm(machine, { force: true }); // a dangling link of a checkout since removed
    await symlink(await realpath(checkoutCopy), machine);
  } catch {
    // Another process linked it first, or the cache is not writable: the checkout's copy still serves.
  }
}

const HOW_TO = `Cairn needs the Temporal CLI for its embedded dev server. Any one of these works:
  - set TEMPORAL_CLI_PATH to a temporal binary;
  - put \`temporal\` on PATH;
  - install Go >= 1.25, and Cairn builds ${MODULE}@${TEMPORAL_CLI_VERSION} into ${dirname(CACHED_CLI)} once per machine;
  - with internet access, the Temporal SDK downloads the CLI itself;
  - or point TEMPORAL_ADDRESS at a running Temporal server.`;
