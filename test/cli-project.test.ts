/**
 * How `cairn dev` / `cairn worker` find and load a project, and what they say when they cannot:
 * no config, a config without agents, a tool module that pulls a Node built-in into the workflow
 * bundle, two tools with one name. Projects are written under .cache/ so that their imports of
 * `cairn-agents` resolve (to the sources, as tsconfig maps them here).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findConfig, loadProject } from '../runtime/project-config.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { workerTools } from '../runtime/worker.js';
import { defineAgent } from '../shared/agent/define-agent.js';
import { workspaceTools } from '../shared/workspace/workspace-tools.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { serverAddress } from './support/temporal.js';

const projects = join(PACKAGE_ROOT, '.cache', 'test-projects');
afterAll(() => rm(projects, { recursive: true, force: true }));

/** Writes `files` into a fresh project folder; returns its path. */
async function project(files: Record<string, string>): Promise<string> {
  const dir = join(projects, randomUUID().slice(0, 8));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

const AGENTS = `
import { z } from 'zod';
import { defineAgent, defineTool } from 'cairn-agents';
export const lookup = defineTool({ name: 'lookup', description: 'Look up.', input: z.object({ id: z.string() }), execute: ({ id }) => ({ id }) });
export const helper = defineAgent({ name: 'helper', instructions: 'Help.', tools: [lookup], model: 'scripted:x' });
`;
const CONFIG = `import { defineConfig } from 'cairn-agents/worker';\nexport default defineConfig({ agents: './src/agents.ts', deps: () => ({ made: true }) });\n`;

/** `cairn <args>` from the sources, in `cwd`. */
function cairn(
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        '--import',
        pathToFileURL(join(PACKAGE_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href,
        join(PACKAGE_ROOT, 'cli', 'main.ts'),
        ...args,
      ],
      { cwd, env: { ...process.env, TSX_TSCONFIG_PATH: join(PACKAGE_ROOT, 'tsconfig.json'), ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('a project’s cairn.config.ts', () => {
  it('is found in the working directory or a folder above it, like vitest’s', async () => {
    const dir = await project({ 'cairn.config.ts': CONFIG, 'src/agents.ts': AGENTS, 'src/deep/er/file.txt': '' });
    expect(findConfig(join(dir, 'src', 'deep', 'er'))).toBe(join(dir, 'cairn.config.ts'));
    const outside = await mkdtemp(join(tmpdir(), 'cairn-no-config-'));
    try {
      expect(findConfig(outside)).toBeUndefined();
    } finally {
      await rm(outside, { recursive: true });
    }
  });

  it('loads the agents module’s agents and makes the deps', async () => {
    const dir = await project({ 'cairn.config.ts': CONFIG, 'src/agents.ts': AGENTS });
    const loaded = await loadProject(join(dir, 'cairn.config.ts'));
    expect(loaded.agents.map((a) => a.name)).toEqual(['helper']);
    expect(loaded.agentsModule).toBe(join(dir, 'src', 'agents.ts'));
    expect(loaded.deps).toEqual({ made: true });
  });

  it.each([
    [
      'no default export',
      { 'cairn.config.ts': 'export const x = 1;\n' },
      /cairn\.config\.ts has no default export: end it with `export default defineConfig/,
    ],
    [
      'no agents module',
      { 'cairn.config.ts': 'export default { deps: {} };\n' },
      /`agents` must name the module that exports your agents/,
    ],
    [
      'a missing agents module',
      { 'cairn.config.ts': "export default { agents: './src/nope.ts' };\n" },
      /the agents module .*src\/nope\.ts does not exist/,
    ],
    [
      'an agents module without agents',
      {
        'cairn.config.ts': "export default { agents: './src/agents.ts' };\n",
        'src/agents.ts': 'export const x = 1;\n',
      },
      /src\/agents\.ts exports no agent/,
    ],
  ])('names the file and the fix: %s', async (_what, files, message) => {
    const dir = await project(files);
    await expect(loadProject(join(dir, 'cairn.config.ts'))).rejects.toThrow(message);
  });

  it('refuses two different tools with one name, naming both agents', () => {
    const make = (agent: string) => ({ name: agent, tools: [{ name: 'lookup' }] });
    expect(() => workerTools([make('support'), make('billing')] as never)).toThrow(
      'Agents "support" and "billing" each have a tool named "lookup", and they are different tools. A worker runs tools by name: rename one, or give both agents the same tool object.',
    );
  });

  it("serves two agents' workspace tools, with their own review rules, as one set", () => {
    const agents = [
      defineAgent({ name: 'coder', instructions: 'Code.', tools: workspaceTools({ approveCommand: 'always' }) }),
      defineAgent({ name: 'builder', instructions: 'Build.', tools: workspaceTools() }),
    ];
    expect(workerTools(agents).map((tool) => tool.name)).toEqual([
      'read_file',
      'write_file',
      'apply_patch',
      'list_files',
      'run_command',
    ]);
  });

  it('says which file pulls a Node built-in into the workflow bundle', async () => {
    const dir = await project({
      'src/tools.ts': `import { readFileSync } from 'node:fs';\nimport { z } from 'zod';\nimport { defineTool } from 'cairn-agents';\nexport const readIt = defineTool({ name: 'read_it', description: 'Read.', input: z.object({}), execute: () => readFileSync('/etc/hostname', 'utf8') });\n`,
      'src/workflows.ts': `import { defineAgent } from 'cairn-agents';\nimport { defineAgentRun } from 'cairn-agents/workflow';\nimport { readIt } from './tools.ts';\nexport const agentRun = defineAgentRun([defineAgent({ name: 'reader', instructions: 'Read.', tools: [readIt] })]);\n`,
    });
    const error = await bundleWorkflows(join(dir, 'src', 'workflows.ts')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      name: 'WorkflowBundleError',
      imports: [{ module: 'fs', importedBy: [expect.stringMatching(/src\/tools\.ts$/)] }],
    });
    expect((error as Error).message).toMatch(/src\/tools\.ts imports 'fs'/);
    expect((error as Error).message).toMatch(/context\.deps/);
  });
});

describe('cairn worker and cairn dev in a project', () => {
  it('without a config: exit 1, one line saying where it looked and what to do', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'cairn-no-config-'));
    try {
      const outcome = await cairn(['worker'], outside);
      expect(outcome.code).toBe(1);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr.trimEnd()).toMatch(
        new RegExp(
          `^cairn worker: No cairn\\.config\\.ts in ${outside} or any folder above it\\..*cairn init.*--config <file>\\.$`,
        ),
      );
    } finally {
      await rm(outside, { recursive: true });
    }
  });

  it('two agents with different tools of one name: exit 1, naming both agents', async () => {
    const dir = await project({
      'cairn.config.ts': CONFIG,
      'src/agents.ts': `${AGENTS}\nconst other = defineTool({ name: 'lookup', description: 'Another lookup.', input: z.object({}), execute: () => ({}) });\nexport const second = defineAgent({ name: 'second', instructions: 'Also help.', tools: [other] });\n`,
    });
    const outcome = await cairn(['worker', '--task-queue', `q-${randomUUID()}`], dir, {
      TEMPORAL_ADDRESS: serverAddress(),
    });
    expect(outcome.code, outcome.stderr).toBe(1);
    expect(outcome.stderr.trimEnd()).toBe(
      'cairn worker: Agents "helper" and "second" each have a tool named "lookup", and they are different tools. A worker runs tools by name: rename one, or give both agents the same tool object.',
    );
  });

  it('a tool module importing node:fs: exit 1, naming the file', async () => {
    const dir = await project({
      'cairn.config.ts': CONFIG,
      'src/agents.ts': `import { readFileSync } from 'node:fs';\n${AGENTS}\nexport const host = () => readFileSync('/etc/hostname', 'utf8');\n`,
    });
    const outcome = await cairn(['worker', '--task-queue', `q-${randomUUID()}`], dir, {
      TEMPORAL_ADDRESS: serverAddress(),
    });
    expect(outcome.code, outcome.stderr).toBe(1);
    expect(outcome.stderr).toMatch(
      /^cairn worker: The workflow bundle cannot include Node built-ins .* src\/agents\.ts imports 'fs' /m,
    );
  });
});
