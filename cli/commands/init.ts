/** `cairn init [dir]`: a starter project — a support agent, its worker, a client and a test. */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { PACKAGE_ROOT, PACKAGE_VERSION } from '../../runtime/package-root.js';
import { parseCommandLine, type Command } from '../command.js';
import { CliError, UsageError } from '../errors.js';

/** The peer dependencies a project installs beside cairn-agents, at the versions Cairn is tested with. */
const PEERS = ['@temporalio/activity', '@temporalio/client', '@temporalio/common', '@temporalio/envconfig', '@temporalio/testing', '@temporalio/worker', '@temporalio/workflow', 'zod'];
const DEV = ['@types/node', 'typescript', 'vitest'];

export const initCommand: Command = {
  name: 'init',
  summary: 'Write a starter project: an agent, its worker, a client and a test',
  help: `Usage: cairn init [dir]

Writes a minimal Cairn project into <dir> (default: this folder), which must not hold any of its
files yet:
  package.json, tsconfig.json, cairn.config.ts, README.md, .gitignore
  src/agents.ts       a support agent: a read tool, and a refund tool behind approval
  src/worker.ts       its worker, with the tools' dependencies
  src/client.ts       your backend's side: start a run, answer it, approve the refund
  src/agents.test.ts  the agent end to end on a real Temporal dev server, scripted model

Then: cd <dir> && npm install && npm test

Options:
  --json      Print one JSON document: { dir, files }
  -h, --help  Show this help`,

  async run(argv, io) {
    const { positionals } = parseCommandLine('init', argv, { options: {}, required: [], optional: ['dir'] });
    const dir = resolve(positionals[0] ?? '.');
    const name = packageName(basename(dir));
    const starter = join(PACKAGE_ROOT, 'starter');
    const files = new Map<string, string>();
    for (const file of await readdir(starter, { recursive: true, withFileTypes: true }))
      if (file.isFile()) {
        const path = relative(starter, join(file.parentPath, file.name));
        // Stored without its dot: npm leaves .gitignore files out of packages.
        files.set(path === 'gitignore' ? '.gitignore' : path, (await readFile(join(starter, path), 'utf8')).replaceAll('{{name}}', name));
      }
    files.set('package.json', `${JSON.stringify(await manifest(name), null, 2)}\n`);

    const taken = [...files.keys()].filter((path) => existsSync(join(dir, path)));
    if (taken.length) throw new CliError(`${dir} already has ${taken.join(', ')}; cairn init writes only into a folder without them.`);
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
    io.document({ dir, files: written });
    return 0;
  },
};

/** The starter's package.json: cairn-agents at this version, its peers and dev tools at the versions Cairn uses. */
async function manifest(name: string): Promise<Record<string, unknown>> {
  const own = JSON.parse(await readFile(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const pick = (names: readonly string[]) => Object.fromEntries(names.map((dep) => [dep, own.devDependencies[dep] ?? 'latest']));
  return {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=24' },
    scripts: { start: 'cairn dev', worker: 'node src/worker.ts', test: 'tsc && vitest run' },
    dependencies: { 'cairn-agents': `^${PACKAGE_VERSION}`, ...pick(PEERS) },
    devDependencies: pick(DEV),
  };
}

/** A folder name as an npm package name. */
function packageName(folder: string): string {
  const name = folder.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+|-+$/g, '');
  if (!name) throw new UsageError(`cannot make a package name of "${folder}"; pass a folder name such as my-agents`);
  return name;
}
