/** `cairn init [dir]`: a starter project — a support agent, its worker, a client and a test. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import { INSTALLED, PACKAGE_ROOT, PACKAGE_VERSION } from '../../runtime/package-root.js';
import { parseCommandLine, type Command } from '../command.js';
import { CliError, UsageError } from '../errors.js';

/**
 * The peer dependencies a project installs beside cairn-agents, at the versions Cairn is tested
 * with: the required ones, and HTTP's optional ones, for `npm start` (cairn dev) serves the inbox
 * page and the HTTP API the starter's README shows.
 */
const PEERS = [
  '@ag-ui/core',
  '@ag-ui/encoder',
  '@temporalio/activity',
  '@temporalio/client',
  '@temporalio/common',
  '@temporalio/envconfig',
  '@temporalio/testing',
  '@temporalio/worker',
  '@temporalio/workflow',
  'ai',
  'zod',
];
const DEV = ['@types/node', 'typescript', 'vitest'];

export const initCommand: Command = {
  name: 'init',
  summary: 'Write a starter project: an agent, its worker, a client and a test',
  help: `Usage: cairn init [dir] [--from <cairn-agents.tgz | folder>]

Writes a minimal Cairn project into <dir> (default: this folder), which must not hold any of its
files yet:
  package.json, tsconfig.json, cairn.config.ts, README.md, .gitignore, .npmrc
  src/agents.ts       a support agent: a read tool, and a refund tool behind approval
  src/scripted-model.ts  the agent's model until you name a real one: no API key needed
  src/worker.ts       its worker, with the tools' dependencies
  src/client.ts       your backend's side: start a run, answer it, approve the refund
  src/agents.test.ts  the agent end to end on a real Temporal dev server, scripted model

Then: cd <dir> && npm install && npm test (or npm start, then npx cairn run support "…")

The project depends on cairn-agents@^<this version> from the npm registry, unless --from names
the copy to install instead: a packed tarball (npm pack) or a checkout of Cairn. With a folder,
the .npmrc gets install-links=true, so that npm packs it like a release (one copy of each
Temporal package) rather than link it with its own node_modules.

Options:
  --from <path>  Depend on this cairn-agents tarball or folder (written as a file: dependency)
  --json         Print one JSON document: { dir, files, cairnAgents }
  -h, --help     Show this help`,

  async run(argv, io) {
    const { values, positionals } = parseCommandLine('init', argv, {
      options: { from: { type: 'string' } },
      required: [],
      optional: ['dir'],
    });
    const dir = resolve(positionals[0] ?? '.');
    const name = packageName(basename(dir));
    const from = values.from === undefined ? undefined : localCopy(values.from);
    const cairnAgents = from ? `file:${relative(dir, from.path).split(sep).join('/') || '.'}` : `^${PACKAGE_VERSION}`;
    const starter = join(PACKAGE_ROOT, 'starter');
    const files = new Map<string, string>();
    for (const file of await readdir(starter, { recursive: true, withFileTypes: true }))
      if (file.isFile()) {
        const path = relative(starter, join(file.parentPath, file.name));
        // Stored without its dot: npm leaves .gitignore files out of packages.
        files.set(
          path === 'gitignore' ? '.gitignore' : path,
          (await readFile(join(starter, path), 'utf8')).replaceAll('{{name}}', name),
        );
      }
    files.set('package.json', `${JSON.stringify(await manifest(name, cairnAgents), null, 2)}\n`);
    // engine-strict: on an older Node, `npm install` stops with "Required: node >=24" instead of a
    // project whose `node src/*.ts` fails later with a loader's stack trace.
    files.set('.npmrc', `engine-strict=true\n${from?.folder ? 'install-links=true\n' : ''}`);

    const taken = [...files.keys()].filter((path) => existsSync(join(dir, path)));
    if (taken.length)
      throw new CliError(`${dir} already has ${taken.join(', ')}; cairn init writes only into a folder without them.`);
    for (const [path, text] of files) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const written = [...files.keys()].sort();
    const cd = relative(process.cwd(), dir);
    io.line(`Wrote a Cairn project in ${dir}:`);
    for (const path of written) io.line(`  ${path}`);
    io.line('');
    io.line(`Next: ${cd ? `cd ${cd} && ` : ''}npm install && npm test`);
    // Run from a tarball or a checkout, this copy of Cairn is likely not what the registry serves.
    if (!from && !INSTALLED)
      io.error(
        `Note: the project depends on cairn-agents@^${PACKAGE_VERSION} from the npm registry, and this cairn runs from ${PACKAGE_ROOT}, not from an installed package. ` +
          'To depend on this copy instead, run cairn init again with --from <its .tgz (npm pack) or folder>, or install it by hand in the project: npm install <path to the .tgz>.',
      );
    io.document({ dir, files: written, cairnAgents });
    return 0;
  },
};

/** `--from`: a cairn-agents tarball, or a folder holding cairn-agents' package.json; CliError otherwise. */
function localCopy(path: string): { path: string; folder: boolean } {
  const absolute = resolve(path);
  const stat = statSync(absolute, { throwIfNoEntry: false });
  if (stat?.isFile() && /\.(tgz|tar\.gz)$/.test(absolute)) return { path: absolute, folder: false };
  if (stat?.isDirectory()) {
    const manifestFile = join(absolute, 'package.json');
    const own = existsSync(manifestFile)
      ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as { name?: string }).name
      : undefined;
    if (own === 'cairn-agents') return { path: absolute, folder: true };
  }
  throw new CliError(
    `--from ${path}: not a cairn-agents tarball (.tgz, from npm pack) or a folder holding cairn-agents' package.json.`,
  );
}

/** The starter's package.json: cairn-agents as given, its peers and dev tools at the versions Cairn uses. */
async function manifest(name: string, cairnAgents: string): Promise<Record<string, unknown>> {
  const own = JSON.parse(await readFile(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const pick = (names: readonly string[]) =>
    Object.fromEntries(names.map((dep) => [dep, own.devDependencies[dep] ?? 'latest']));
  return {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=24' },
    scripts: { start: 'cairn dev', worker: 'node src/worker.ts', test: 'tsc && vitest run' },
    dependencies: { 'cairn-agents': cairnAgents, ...pick(PEERS) },
    devDependencies: pick(DEV),
  };
}

/** A folder name as an npm package name. */
function packageName(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|-+$/g, '');
  if (!name) throw new UsageError(`cannot make a package name of "${folder}"; pass a folder name such as my-agents`);
  return name;
}
