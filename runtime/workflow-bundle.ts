/**
 * Bundles workflow code ahead of time, with webpack's chatter kept out of the output, and with an
 * error that names the file behind a forbidden import: "src/tools.ts imports 'node:fs'", not just
 * "'fs' is disallowed". Tests, benches, the CLI and createCairnWorker bundle through here.
 * Node-only.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type BundleOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { PACKAGE_ROOT, PACKAGE_VERSION, RUNNING_FROM_SOURCE } from './package-root.js';

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
> & {
  /**
   * Keep the bundle in this folder and reuse it while the entry's text, these options and every
   * file the bundle includes (by size and modification time) are unchanged (`cairn eval`).
   */
  readonly cacheDir?: string;
};

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

/** What of webpack's compiler the bundle cache uses. */
interface WebpackCompiler {
  hooks: { afterCompile: { tap(name: string, f: (c: { modules: Iterable<{ resource?: string }> }) => void): void } };
  close(callback: (error?: unknown) => void): void;
}

type Config = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
type ExternalsData = { request?: string; contextInfo?: { issuer?: string } };

/**
 * Bundles `workflowsPath` (a file exporting your workflows, e.g. `agentRun`). Throws WorkflowBundleError
 * for a forbidden import. With `cacheDir`, also says which files the bundle includes.
 */
export async function bundleWorkflows(
  workflowsPath: string,
  options: BundleWorkflowsOptions = {},
): Promise<WorkflowBundleWithSourceMap & { readonly files?: readonly string[] }> {
  const { cacheDir, ...bundleOptions } = options;
  const cached = cacheDir ? await cachedBundle(cacheDir, workflowsPath, bundleOptions) : undefined;
  if (cached?.bundle) return cached.bundle;
  const importers = new Map<string, Set<string>>();
  const ignored = options.ignoreModules ?? [];
  let files: readonly string[] = [];
  let compiler: WebpackCompiler | undefined;
  // The files the bundle's modules come from: what a cached bundle is checked against.
  const recordFiles = {
    apply(used: WebpackCompiler) {
      compiler = used;
      // The modules' own files: the loaders webpack ran are listed only when it did not take a module from its cache.
      used.hooks.afterCompile.tap('cairn-bundle-cache', (compilation) => {
        files = [...compilation.modules].flatMap((module) => (module.resource ? [module.resource] : []));
      });
    },
  };
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
      module: { ...config.module, rules: config.module?.rules?.map(nativeSyntax) },
      resolve: { ...config.resolve, modules, alias: { ...sourceAliases(), ...(config.resolve?.alias as object) } },
      plugins: [
        ...(config.plugins ?? []),
        builtinsAsBindings(),
        bundleFlag(),
        ...(cacheDir ? [recordFiles as never] : []),
      ],
      optimization: { ...config.optimization, ...scopeHoisting },
      // Webpack's own cache too: a changed eval module rebuilds only what changed.
      ...(cacheDir && { cache: { type: 'filesystem', cacheDirectory: join(cacheDir, 'webpack') } }),
    };
  };
  const errors: string[] = [];
  try {
    const bundle = await bundleWorkflowCode({
      workflowsPath,
      logger: quietLogger(errors),
      webpackConfigHook,
      preloadModules: PRELOADED.map(sourceModule),
      ...bundleOptions,
    });
    // The SDK leaves its compiler open; closed, it writes webpack's cache.
    await new Promise((resolve) => (compiler ? compiler.close(resolve) : resolve(undefined)));
    // A cache that cannot be written only costs time.
    const included = cached ? await cached.keep(bundle, files).catch(() => undefined) : undefined;
    return included ? { ...bundle, files: included } : bundle;
  } catch (error) {
    const explained = explain(error, importers);
    if (explained === error) for (const message of errors) console.error(message);
    throw explained;
  }
}

interface CachedBundle {
  readonly files: readonly (readonly [path: string, size: number, mtimeMs: number])[];
  readonly code: string;
  readonly sourceMap: WorkflowBundleWithSourceMap['sourceMap'];
}

/** The bundle cached for this entry's text and options if no file it includes changed since, and how to keep a new one. */
async function cachedBundle(
  dir: string,
  workflowsPath: string,
  options: Omit<BundleWorkflowsOptions, 'cacheDir'>,
): Promise<{
  bundle?: WorkflowBundleWithSourceMap & { readonly files: readonly string[] };
  /** Keeps `bundle`, and says which of `files` (webpack's) it depends on. */
  keep(bundle: WorkflowBundleWithSourceMap, files: readonly string[]): Promise<readonly string[]>;
}> {
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        PACKAGE_VERSION,
        RUNNING_FROM_SOURCE,
        await readFile(workflowsPath, 'utf8'),
        workflowsPath,
        options,
      ]),
    )
    .digest('hex')
    .slice(0, 32);
  const file = join(dir, `bundle-${key}.json`);
  const now = async (path: string) => {
    const info = await stat(path);
    return [path, info.size, info.mtimeMs, info.isFile()] as const;
  };
  const keep = async (bundle: WorkflowBundleWithSourceMap, files: readonly string[]) => {
    // The entry itself is rewritten on every start: its text is in the key instead. Folders (webpack lists some) change with any file written in them.
    // The SDK's own entry is generated in memory: only what is on disk is checked.
    const onDisk = await Promise.all(
      files.filter((path) => path !== workflowsPath).map((path) => now(path).catch(() => undefined)),
    );
    const included = onDisk.flatMap((item) => (item?.[3] ? [[item[0], item[1], item[2]] as const] : []));
    const entry: CachedBundle = { files: included, code: bundle.code, sourceMap: bundle.sourceMap };
    await mkdir(dir, { recursive: true });
    const partial = `${file}.${process.pid}-${randomUUID()}`;
    await writeFile(partial, JSON.stringify(entry));
    await rename(partial, file);
    return included.map(([path]) => path);
  };
  try {
    const entry = JSON.parse(await readFile(file, 'utf8')) as CachedBundle;
    const current = await Promise.all(entry.files.map(([path]) => now(path)));
    const unchanged = current.every(
      ([, size, mtimeMs], i) => size === entry.files[i]![1] && mtimeMs === entry.files[i]![2],
    );
    const files = entry.files.map(([path]) => path);
    return unchanged ? { bundle: { code: entry.code, sourceMap: entry.sourceMap, files }, keep } : { keep };
  } catch {
    return { keep }; // none yet, unreadable, or a file it included is gone
  }
}

/** workflows/sandbox-stand-ins: what the sandbox lacks and common packages (`ai`) define subclasses of as they load. */
function standInsModule(): string {
  return fileURLToPath(new URL(`../workflows/sandbox-stand-ins.${RUNNING_FROM_SOURCE ? 'ts' : 'js'}`, import.meta.url));
}

/**
 * The SDK compiles TypeScript for ES2017: object spread, `?.`, `??` and `#private` fields become
 * helper calls and WeakMaps. The sandbox is this Node's V8, which runs them natively, faster.
 */
function nativeSyntax<Rule>(rule: Rule): Rule {
  const use = (rule as { use?: { loader?: string; options?: { jsc?: { target?: string } } } }).use;
  if (!use?.loader?.includes('swc-loader') || use.options?.jsc?.target === undefined) return rule;
  return { ...rule, use: { ...use, options: { ...use.options, jsc: { ...use.options.jsc, target: 'es2022' } } } };
}

/**
 * Webpack's scope hoisting, off in the development mode the SDK bundles in: ES modules imported
 * only by one another become one module, their imports plain variables instead of a getter each
 * (`__webpack_require__.d`) and a module-cache lookup per module per run.
 */
const scopeHoisting = { concatenateModules: true };

/** The names shared/sandbox-builtins.ts exports. */
const BUILTINS = [
  'Math',
  'JSON',
  'Object',
  'Array',
  'Number',
  'String',
  'Symbol',
  'Reflect',
  'Map',
  'Set',
  'Promise',
  'Error',
  'TypeError',
  'RegExp',
];

/**
 * Webpack's ProvidePlugin (the copy the SDK bundles with): a module's free `Math`, `JSON`… become
 * a binding read once from shared/sandbox-builtins.ts, not a global looked up through the
 * sandbox's interceptors at every use.
 */
function builtinsAsBindings(): never {
  const from = sourceModule('shared/sandbox-builtins');
  return new (sdkWebpack().ProvidePlugin)(Object.fromEntries(BUILTINS.map((name) => [name, [from, name]]))) as never;
}

/**
 * `CAIRN_WORKFLOW_BUNDLE` is `true` in the bundle (webpack's DefinePlugin): what the worker checked
 * when it imported the agents is not done again for every run (shared/tools/define-tool.ts).
 */
function bundleFlag(): never {
  return new (sdkWebpack().DefinePlugin)({ CAIRN_WORKFLOW_BUNDLE: 'true' }) as never;
}

/** The webpack the SDK bundles with: its plugins must be that copy's. */
function sdkWebpack(): {
  ProvidePlugin: new (definitions: Record<string, [string, string]>) => unknown;
  DefinePlugin: new (definitions: Record<string, string>) => unknown;
} {
  return createRequire(createRequire(import.meta.url).resolve('@temporalio/worker'))('webpack');
}

/**
 * Modules the SDK evaluates once per workflow thread, before any run, and shares with every run
 * (their exports deep-frozen), instead of once per run. Only modules that keep no state of a run
 * and import neither zod (frozen, its regexes' `lastIndex` throws) nor `@temporalio/*`: the schema
 * cache (shared/lazy-schema.ts, which must be one per thread), hashing (the transcript digest,
 * argument hashes) and the stream's wire encoding, with what they import.
 */
const PRELOADED = ['shared/lazy-schema', 'shared/identity/hash', 'shared/json/canonical-json', 'shared/stream-wire'];

/** A module of Cairn's, by its path from the package root without extension, as a file. */
function sourceModule(path: string): string {
  return fileURLToPath(new URL(`../${path}.${RUNNING_FROM_SOURCE ? 'ts' : 'js'}`, import.meta.url));
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
