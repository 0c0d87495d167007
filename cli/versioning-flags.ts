/**
 * The flags (and environment) of Worker Deployment Versioning that `cairn worker` and `cairn deploy`
 * share: which deployment, which build, and how runs move when their agent does not choose. Each
 * flag wins over its variable, which wins over the config's `versioning`. Light: parsed before the
 * worker loads. docs/upgrades.md. Node-only.
 */
import { AGENT_VERSIONINGS, isAgentVersioning, type AgentVersioning } from '../shared/agent/versioning.js';
import { deploymentNameProblem, type WorkerVersioning } from '../runtime/worker-versioning.js';
import { UsageError } from './errors.js';

/** The variables docker-compose (and any container) sets instead of the flags; empty is unset. */
export const VERSIONING_ENV = {
  deploymentName: 'CAIRN_DEPLOYMENT_NAME',
  buildId: 'CAIRN_BUILD_ID',
  versioning: 'CAIRN_VERSIONING',
} as const;

export const VERSIONING_OPTIONS = {
  'deployment-name': { type: 'string' },
  'build-id': { type: 'string' },
  versioning: { type: 'string' },
} as const;

export const VERSIONING_HELP = `  --deployment-name <name>             Run as a build of this Worker Deployment (default: the config's
                                       versioning.deploymentName, else package.json's name); turns
                                       versioning on. Env CAIRN_DEPLOYMENT_NAME
  --build-id <id>                      This build's id, e.g. the git commit (default: cairn@ and the
                                       workflow bundle's hash); turns versioning on. Env CAIRN_BUILD_ID
  --versioning <pinned|auto-upgrade|off>  How runs of agents that do not choose move between builds:
                                       pinned (default) or auto-upgrade; off runs unversioned whatever
                                       the config says. Env CAIRN_VERSIONING (see docs/upgrades.md)`;

/** What the command line and environment say of versioning, before the config is read. */
export interface VersioningFlags {
  readonly off: boolean;
  readonly deploymentName?: string;
  readonly buildId?: string;
  readonly defaultBehavior?: AgentVersioning;
}

/** The versioning flags, each else its variable; UsageError for a value Temporal or Cairn cannot use. */
export function versioningFlags(
  values: Record<string, string | boolean | undefined>,
  env: NodeJS.ProcessEnv = process.env,
): VersioningFlags {
  const read = (
    flag: keyof typeof VERSIONING_OPTIONS,
    variable: string,
  ): { value: string; from: string } | undefined => {
    const given = values[flag];
    if (typeof given === 'string') return { value: given.trim(), from: `--${flag}` };
    const set = env[variable]?.trim();
    return set ? { value: set, from: variable } : undefined;
  };
  const name = read('deployment-name', VERSIONING_ENV.deploymentName);
  if (name && deploymentNameProblem(name.value))
    throw new UsageError(`${name.from} must be a name without "." or ":" (Temporal's rule), not "${name.value}"`);
  const build = read('build-id', VERSIONING_ENV.buildId);
  if (build && !build.value) throw new UsageError(`${build.from} is empty`);
  const choice = read('versioning', VERSIONING_ENV.versioning);
  if (choice && choice.value !== 'off' && !isAgentVersioning(choice.value))
    throw new UsageError(
      `${choice.from} must be ${[...AGENT_VERSIONINGS, 'off'].map((v) => `"${v}"`).join(', ')}, not "${choice.value}"`,
    );
  return {
    off: choice?.value === 'off',
    ...(name && { deploymentName: name.value }),
    ...(build && { buildId: build.value }),
    ...(choice && isAgentVersioning(choice.value) && { defaultBehavior: choice.value }),
  };
}

/**
 * The worker's versioning: off when told so; else on when a flag, a variable or the config asks
 * for it, each part from the first that gives it (flag, variable, config, default).
 */
export function workerVersioning(
  flags: VersioningFlags,
  project: { readonly versioning?: Partial<WorkerVersioning>; readonly deploymentName: string },
): WorkerVersioning | undefined {
  if (flags.off) return undefined;
  const asked =
    flags.deploymentName !== undefined || flags.buildId !== undefined || flags.defaultBehavior !== undefined;
  if (!asked && !project.versioning) return undefined;
  const config = project.versioning ?? {};
  const buildId = flags.buildId ?? config.buildId;
  return {
    deploymentName: deploymentNameOf(flags, project),
    ...(buildId !== undefined && { buildId }),
    defaultBehavior: flags.defaultBehavior ?? config.defaultBehavior ?? 'pinned',
  };
}

/** The deployment a command acts on: the flag, the variable, the config's, else the project's default name. */
export function deploymentNameOf(
  flags: Pick<VersioningFlags, 'deploymentName'>,
  project: { readonly versioning?: Partial<WorkerVersioning>; readonly deploymentName: string },
): string {
  return flags.deploymentName ?? project.versioning?.deploymentName ?? project.deploymentName;
}
