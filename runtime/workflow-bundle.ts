/**
 * Bundles workflow code ahead of time, with webpack's chatter kept out of the output, and with an
 * error that names the file behind a forbidden import: "src/tools.ts imports 'node:fs'", not just
 * "'fs' is disallowed". Tests, benches, the CLI and createCairnWorker bundle through here.
 * Node-only.
 */
import { builtinModules, createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type BundleOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { PACKAGE_ROOT, RUNNING_FROM_SOURCE } from './package-root.js';

/** Webpack's chatter dropped; its errors held back until it is known whether Cairn can say it better. */
function quietLogger(errors: string[]) {
  return {
    log: () => {},
    trace: () => {},
    debug: () => {},
    info: () => {},
    warn: (message: string) => console.warn(message),
    error: (message: string) => void errors.push(message),
  };
}

/** Workflow code imported something the sandbox cannot have; `imports` says who imported what. */
export class WorkflowBundleError extends Error {
  override readonly name = 'WorkflowBundleError';
  constructor(
    message: string,
    /** Each forbidden import: the module, and the files (relative to the working directory) importing it. */
    readonly imports: readonly { readonly module: string; readonly importedBy: readonly string[] }[],
  ) {
    super(message);
  }
}

/** What bundling needs besides the entry; the data converter paths must match the worker's. */
export type BundleWorkflowsOptions = Pick<
  BundleOptions,
  'payloadConverterPath' | 'failureConverterPath' | 'ignoreModules' | 'workflowInterceptorModules'
>;

/**
 * What the sandbox cannot have: Node built-ins but the three Temporal replaces (assert, url, util),
 * and the SDK's non-workflow packages.
 */
const FORBIDDEN = new RegExp(
  `^(${builtinModules
    .filter((m) => !['assert', 'url', 'util'].includes(m))
    .map((m) => m.replace(/[/.]/g, '\\$&'))
    .join('|')}|@temporalio/(activity|client|worker|testing|envconfig|common/lib/internal-non-workflow))(/|$)`,
);

/** The node_modules folder holding the @temporalio/workflow Cairn itself imports (a peer: the project's). */
const SDK_NODE_MODULES = (() => {
  const parts = createRequire(import.meta.url)
    .resolve('@temporalio/workflow')
    .split(sep);
  return parts.slice(0, parts.lastIndexOf('node_modules') + 1).join(sep);
})();

type Config = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
type ExternalsData = { request?: string; contextInfo?: { issuer?: string } };

/** Bundles `workflowsPath` (a file exporting your workflows, e.g. `agentRun`). Throws WorkflowBundleError for a forbidden import. */
export async function bundleWorkflows(
  workflowsPath: string,
  options: BundleWorkflowsOptions = {},
): Promise<WorkflowBundleWithSourceMap> {
  const importers = new Map<string, Set<string>>();
  const ignored = options.ignoreModules ?? [];
  const webpackConfigHook = (config: Config): Config => {
    const original = config.externals as ((data: ExternalsData, callback: unknown) => Promise<unknown>) | undefined;
    const externals = async (data: ExternalsData, callback: unknown) => {
      const name = (data.request ?? '').replace(/^node:/, '');
      if (
        FORBIDDEN.test(name) &&
        !ignored.some((m) => name === m || name.startsWith(`${m}/`)) &&
        data.contextInfo?.issuer
      ) {
        if (!importers.has(name)) importers.set(name, new Set());
        importers.get(name)!.add(data.contextInfo.issuer);
      }
      return original?.(data, callback);
    };
    // The stand-ins load before anything else (the last entry is the one the bundle exports).
    const entry = [standInsModule(), ...(Array.isArray(config.entry) ? config.entry : [config.entry as string])];
    // Last, the node_modules Cairn's own @temporalio/workflow comes from: an entry generated
    // outside the project (runtime/agents-entry.ts) resolves the SDK's modules there.
    const modules = [...((config.resolve?.modules as string[] | undefined) ?? ['node_modules']), SDK_NODE_MODULES];
    return {
      ...config,
      entry,
      externals,
      resolve: { ...config.resolve, modules, alias: { ...sourceAliases(), ...(config.resolve?.alias as object) } },
    };
  };
  const errors: string[] = [];
  try {
    return await bundleWorkflowCode({ workflowsPath, logger: quietLogger(errors), webpackConfigHook, ...options });
  } catch (error) {
    const explained = explain(error, importers);
    if (explained === error) for (const message of errors) console.error(message);
    throw explained;
  }
}

/** workflows/sandbox-stand-ins: what the sandbox lacks and common packages (`ai`) define subclasses of as they load. */
function standInsModule(): string {
  return fileURLToPath(new URL(`../workflows/sandbox-stand-ins.${RUNNING_FROM_SOURCE ? 'ts' : 'js'}`, import.meta.url));
}

/**
 * In a checkout of Cairn run from its sources, `cairn-agents` (which the examples import) means
 * the sources, so a bundle never mixes them with a stale dist/. Installed, the package resolves as usual.
 */
function sourceAliases(): Record<string, string> {
  if (!RUNNING_FROM_SOURCE) return {};
  const entries = ['index', 'workflow', 'worker', 'client', 'testing'];
  return Object.fromEntries(
    entries.map((name) => [
      name === 'index' ? 'cairn-agents$' : `cairn-agents/${name}$`,
      join(PACKAGE_ROOT, 'entry', `${name}.ts`),
    ]),
  );
}

/**
 * A failed bundle that imported what the sandbox cannot have, with the importing files named and
 * the way out. (Temporal says "disallowed modules" for `fs`; `node:fs` fails inside webpack first.)
 */
function explain(error: unknown, importers: ReadonlyMap<string, ReadonlySet<string>>): unknown {
  if (importers.size === 0) return error;
  const imports = [...importers].map(([module, files]) => ({
    module,
    importedBy: [...files].map((file) => relative(process.cwd(), file) || file).sort(),
  }));
  const lines = imports.map(
    ({ module, importedBy }) => `  - ${importedBy.length ? importedBy.join(', ') : 'a module'} imports '${module}'`,
  );
  return new WorkflowBundleError(
    `The workflow bundle cannot include Node built-ins or Temporal's worker, client or activity packages, and these imports pull them in:\n${lines.join('\n')}\n` +
      "Agents and tools are imported by workflow code, which runs in Temporal's deterministic sandbox. Give the side effect to the worker " +
      "instead (createCairnWorker({ deps }), which each tool's execute receives as context.deps), or import only types (`import type`).",
    imports,
  );
}
