/**
 * A project's `cairn.config.ts`: which module holds its agents (workflow-safe: it goes into the
 * workflow bundle) and what the worker alone gets (the tools' deps, model providers, Worker
 * options). `cairn dev` and `cairn worker` find it from the working directory upward, the way
 * vitest finds its config, or take `--config <file>`. Node-only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ResolveModelOptions } from '../activities/model/resolve-model.js';
import { agentsOf, type Agent } from '../shared/agent/define-agent.js';
import { AGENT_VERSIONINGS, isAgentVersioning } from '../shared/agent/versioning.js';
import type { WorkerTuning } from './worker.js';
import { THRESHOLD_NAMES, thresholdProblem, type GateThresholds } from './deploy-gate-thresholds.js';
import { deploymentNameOf, deploymentNameProblem, type WorkerVersioning } from './worker-versioning.js';

export interface CairnConfig {
  /**
   * The module exporting your agents, relative to this file (e.g. `./src/agents.ts`). Workflow
   * code imports it, so it and every tool module it imports must be workflow-safe.
   */
  readonly agents: string;
  /** What tools get as `context.deps`, made on the worker only (never bundled): a value or a function, maybe async. */
  readonly deps?: unknown;
  /** How model specs resolve on the worker: extra AI SDK `providers`, `scripts`, `env`. */
  readonly models?: ResolveModelOptions;
  /** Task queue for `cairn dev` / `cairn worker` (their --task-queue wins). Default `cairn`. */
  readonly taskQueue?: string;
  /** Temporal Worker options (maxCachedWorkflows, maxConcurrentActivityTaskExecutions…); flags win. */
  readonly worker?: WorkerTuning;
  /**
   * Worker Deployment Versioning for `cairn worker` (docs/upgrades.md): `true` for the defaults (the
   * deployment named after your package.json's `name`, a build id from the workflow bundle, runs
   * pinned), or the parts to set. Its flags and CAIRN_DEPLOYMENT_NAME, CAIRN_BUILD_ID and
   * CAIRN_VERSIONING win. `cairn dev` runs one build and is never versioned.
   */
  readonly versioning?: boolean | Partial<WorkerVersioning>;
  /**
   * The evaluation `cairn deploy set-current`, `ramp` and `gate` run after replaying the runs that
   * would move (docs/upgrades.md): the eval module, relative to this file, and the thresholds
   * over which nothing is promoted. Their flags win; `--no-eval` skips it.
   */
  readonly deployGate?: DeployGateConfig;
}

/** The config's `deployGate`: an eval module (defineEval) and the gate's thresholds. */
export interface DeployGateConfig extends GateThresholds {
  readonly eval: string;
  /** The module's export to evaluate (default: the default export). */
  readonly exportName?: string;
}

/** Types your config (`export default defineConfig({...})`); returns it unchanged. */
export function defineConfig(config: CairnConfig): CairnConfig {
  return config;
}

/** The keys a config has: any other is a mistake, refused rather than ignored (a misspelled `deps` left every tool without its deps). */
export const CONFIG_KEYS = ['agents', 'deps', 'models', 'taskQueue', 'worker', 'versioning', 'deployGate'] as const;

/** Words people write for a key, and the key they mean. */
const MEANT: Readonly<Record<string, (typeof CONFIG_KEYS)[number]>> = {
  dependencies: 'deps',
  dependency: 'deps',
  context: 'deps',
  services: 'deps',
  model: 'models',
  providers: 'models',
  queue: 'taskQueue',
  task_queue: 'taskQueue',
  workerOptions: 'worker',
  agent: 'agents',
  deployment: 'versioning',
  workerDeploymentOptions: 'versioning',
  gate: 'deployGate',
  deployEval: 'deployGate',
};

/** One line for an unknown key, naming the nearest known one. */
export function unknownKeyText(key: string): string {
  const near =
    MEANT[key] ??
    MEANT[key.toLowerCase()] ??
    CONFIG_KEYS.find((known) => editDistance(known.toLowerCase(), key.toLowerCase()) <= 2);
  const shown = JSON.stringify(key.slice(0, 60));
  return near
    ? `unknown key ${shown}: did you mean \`${near}\`? (a config has ${CONFIG_KEYS.join(', ')})`
    : `unknown key ${shown}: a config has ${CONFIG_KEYS.join(', ')}.`;
}

/** Levenshtein distance (short keys only). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || b.length > 40) return 3;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The file names looked for, in this order, in each folder. */
export const CONFIG_FILES = ['cairn.config.ts', 'cairn.config.mts', 'cairn.config.js', 'cairn.config.mjs'] as const;

/** A config that cannot be used: the message names the file and the fix. */
export class ProjectConfigError extends Error {
  override readonly name = 'ProjectConfigError';
}

/** The nearest config file in `from` or a folder above it, if any. */
export function findConfig(from: string = process.cwd()): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    for (const name of CONFIG_FILES) if (existsSync(join(dir, name))) return join(dir, name);
    if (dirname(dir) === dir) return undefined;
  }
}

/** What a worker for the project needs, read from its config. */
export interface Project {
  readonly configFile: string;
  /** Absolute path of the agents module. */
  readonly agentsModule: string;
  readonly agents: readonly Agent[];
  readonly deps: unknown;
  readonly models?: ResolveModelOptions;
  readonly taskQueue?: string;
  readonly worker?: WorkerTuning;
  /** The config's `versioning`, when it turns versioning on (`true` is `{}`). */
  readonly versioning?: Partial<WorkerVersioning>;
  /** The deployment the project's builds share unless told otherwise: package.json's `name` (a `.` made `-`), else the config's folder. */
  readonly deploymentName: string;
  /** The config's `deployGate`, its eval module made absolute. */
  readonly deployGate?: DeployGateConfig;
}

/** Loads `configFile` and its agents module (Node strips TypeScript types itself), and makes the deps. */
export async function loadProject(configFile: string, options: { readonly deps?: boolean } = {}): Promise<Project> {
  const file = resolve(configFile);
  const shown = relative(process.cwd(), file) || file;
  if (!existsSync(file)) throw new ProjectConfigError(`${shown} does not exist.`);
  const loaded = (await importModule(file, shown)).default as Partial<CairnConfig> | undefined;
  if (typeof loaded !== 'object' || loaded === null)
    throw new ProjectConfigError(
      `${shown} has no default export: end it with \`export default defineConfig({ agents: './src/agents.ts' })\`.`,
    );
  const unknown = Object.keys(loaded).find((key) => !(CONFIG_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) throw new ProjectConfigError(`${shown}: ${unknownKeyText(unknown)}`);
  if (typeof loaded.agents !== 'string' || !loaded.agents)
    throw new ProjectConfigError(
      `${shown}: \`agents\` must name the module that exports your agents, e.g. agents: './src/agents.ts'.`,
    );
  const versioning = configVersioning(loaded.versioning, shown);
  const deployGate = configDeployGate(loaded.deployGate, dirname(file), shown);
  const agentsModule = isAbsolute(loaded.agents) ? loaded.agents : resolve(dirname(file), loaded.agents);
  const agentsShown = relative(process.cwd(), agentsModule) || agentsModule;
  if (!existsSync(agentsModule))
    throw new ProjectConfigError(`${shown}: the agents module ${agentsShown} does not exist.`);
  let agents: Agent[];
  try {
    agents = agentsOf(await importModule(agentsModule, agentsShown), agentsShown);
  } catch (error) {
    throw error instanceof ProjectConfigError
      ? error
      : new ProjectConfigError(`${agentsShown}: ${(error as Error).message}`);
  }
  let deps: unknown;
  try {
    // `deps: false` (cairn replay) makes none: no tool runs, so no credentials are needed.
    if (options.deps !== false)
      deps = typeof loaded.deps === 'function' ? await (loaded.deps as () => unknown)() : loaded.deps;
  } catch (error) {
    throw new ProjectConfigError(`${shown}: making the deps failed: ${(error as Error).message}`);
  }
  return {
    configFile: file,
    agentsModule,
    agents,
    deps,
    ...(loaded.models && { models: loaded.models }),
    ...(loaded.taskQueue && { taskQueue: loaded.taskQueue }),
    ...(loaded.worker && { worker: loaded.worker }),
    ...(versioning && { versioning }),
    ...(deployGate && { deployGate }),
    deploymentName: defaultDeploymentName(dirname(file)),
  };
}

/** The config's `versioning`, checked: `true` is `{}`, `false` or none is undefined. */
function configVersioning(value: unknown, shown: string): Partial<WorkerVersioning> | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return {};
  const wrong = (what: string) =>
    new ProjectConfigError(
      `${shown}: \`versioning\` ${what}; it is true, or { deploymentName?, buildId?, defaultBehavior? } (docs/upgrades.md).`,
    );
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw wrong(`is ${JSON.stringify(value)}`);
  const { deploymentName, buildId, defaultBehavior, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw wrong(`has an unknown key ${JSON.stringify(unknown)}`);
  if (deploymentName !== undefined && (typeof deploymentName !== 'string' || deploymentNameProblem(deploymentName)))
    throw wrong(
      typeof deploymentName === 'string'
        ? `has a deploymentName Temporal refuses (${deploymentNameProblem(deploymentName)})`
        : 'has a deploymentName that is not text',
    );
  if (buildId !== undefined && (typeof buildId !== 'string' || !buildId.trim()))
    throw wrong('has a buildId that is not text (leave it out for the one derived from the workflow bundle)');
  if (defaultBehavior !== undefined && !isAgentVersioning(defaultBehavior))
    throw wrong(
      `has defaultBehavior ${JSON.stringify(defaultBehavior)}, not ${AGENT_VERSIONINGS.map((v) => `"${v}"`).join(' or ')}`,
    );
  return value as Partial<WorkerVersioning>;
}

/** The config's `deployGate`, checked, its module resolved from `dir`. */
function configDeployGate(value: unknown, dir: string, shown: string): DeployGateConfig | undefined {
  if (value === undefined) return undefined;
  const wrong = (what: string) =>
    new ProjectConfigError(
      `${shown}: \`deployGate\` ${what}; it is { eval: './evals/gate.ts', exportName?, ${THRESHOLD_NAMES.map((name) => `${name}?`).join(', ')} } (docs/upgrades.md).`,
    );
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw wrong(`is ${JSON.stringify(value)}`);
  const { eval: module, exportName, ...thresholds } = value as Record<string, unknown>;
  if (typeof module !== 'string' || !module.trim()) throw wrong('needs `eval`, the eval module');
  if (exportName !== undefined && (typeof exportName !== 'string' || !exportName))
    throw wrong('has an exportName that is not text');
  for (const [name, threshold] of Object.entries(thresholds)) {
    if (!(THRESHOLD_NAMES as readonly string[]).includes(name))
      throw wrong(`has an unknown key ${JSON.stringify(name)}`);
    const problem = thresholdProblem(name as keyof GateThresholds, threshold);
    if (problem) throw wrong(`has ${name} ${JSON.stringify(threshold)}: it ${problem}`);
  }
  return {
    ...(thresholds as GateThresholds),
    eval: isAbsolute(module) ? module : resolve(dir, module),
    ...(exportName !== undefined && { exportName: exportName as string }),
  };
}

/** The `name` of the nearest package.json at or above `dir` (a `.` made `-`); else the folder's own name. */
export function defaultDeploymentName(dir: string): string {
  for (let at = resolve(dir); ; at = dirname(at)) {
    const file = join(at, 'package.json');
    if (existsSync(file)) {
      try {
        const { name } = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown };
        if (typeof name === 'string' && name.trim()) return deploymentNameOf(name);
      } catch {
        // An unreadable package.json names nothing: the folder does.
      }
      break;
    }
    if (dirname(at) === at) break;
  }
  return deploymentNameOf(basename(resolve(dir)));
}

async function importModule(file: string, shown: string): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    const hint =
      IMPORT_HINTS[code ?? ''] ??
      (/does not provide an export named/.test(message ?? '') ? IMPORT_HINTS.TYPE_IMPORT : undefined);
    throw new ProjectConfigError(`Cannot load ${shown}: ${message ?? String(error)}${hint ? ` ${hint}` : ''}`);
  }
}

/** Node runs TypeScript by stripping types: what each of its refusals asks of the file. */
const IMPORT_HINTS: Record<string, string> = {
  ERR_MODULE_NOT_FOUND:
    'Node runs your TypeScript as it is: import relative files by their real name (./tools.ts, not ./tools.js), and install the packages it imports.',
  ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX:
    'Node strips types but does not compile: no enums, namespaces or parameter properties (tsconfig "erasableSyntaxOnly": true finds them).',
  ERR_UNKNOWN_FILE_EXTENSION: 'Use Node 24 or later, which runs .ts files.',
  TYPE_IMPORT: 'Import types with `import type`: Node removes them, so a plain import of a type finds nothing.',
};
