/**
 * A project's `cairn.config.ts`: which module holds its agents (workflow-safe: it goes into the
 * workflow bundle) and what the worker alone gets (the tools' deps, model providers, Worker
 * options). `cairn dev` and `cairn worker` find it from the working directory upward, the way
 * vitest finds its config, or take `--config <file>`. Node-only.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ResolveModelOptions } from '../activities/model/resolve-model.js';
import { agentsOf, type Agent } from '../shared/agent/define-agent.js';
import type { WorkerTuning } from './worker.js';

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
}

/** Types your config (`export default defineConfig({...})`); returns it unchanged. */
export function defineConfig(config: CairnConfig): CairnConfig {
  return config;
}

/** The keys a config has: any other is a mistake, refused rather than ignored (a misspelled `deps` left every tool without its deps). */
export const CONFIG_KEYS = ['agents', 'deps', 'models', 'taskQueue', 'worker'] as const;

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
  };
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
