import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir } from 'node:fs/promises';
import { defaultDeploymentName, loadProject, unknownKeyText } from './project-config.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-config-'));
  await writeFile(join(dir, 'agents.mjs'), 'export const agents = [];\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function load(config: string): Promise<unknown> {
  const file = join(dir, `cairn.config.${Math.random().toString(36).slice(2)}.mjs`);
  await writeFile(file, `export default ${config};\n`);
  return loadProject(file).catch((error: Error) => error);
}

describe('a project config', () => {
  it('refuses an unknown key in one line naming the key meant (a misspelled deps left every tool without them)', async () => {
    const refused = (await load("{ agents: './agents.mjs', dependencies: { db: {} } }")) as Error;
    expect(refused).toMatchObject({ name: 'ProjectConfigError' });
    expect(refused.message).toMatch(/: unknown key "dependencies": did you mean `deps`\? \(a config has agents, deps/);
    expect(refused.message.split('\n')).toHaveLength(1);
  });

  it('names the nearest key for a typo, and lists the keys when none is near', () => {
    expect(unknownKeyText('taskQeue')).toContain('did you mean `taskQueue`?');
    expect(unknownKeyText('modles')).toContain('did you mean `models`?');
    expect(unknownKeyText('somethingElse')).toBe(
      'unknown key "somethingElse": a config has agents, deps, models, taskQueue, worker, versioning, deployGate.',
    );
  });

  it('loads a config of known keys', async () => {
    const agents = JSON.stringify(join(import.meta.dirname, '../examples/orders/agent.ts'));
    const project = (await load(`{ agents: ${agents}, deps: { db: 1 }, taskQueue: 'q' }`)) as {
      deps: unknown;
      taskQueue: string;
    };
    expect(project).toMatchObject({ deps: { db: 1 }, taskQueue: 'q' });
  });
});

describe("a project config's versioning", () => {
  const agents = JSON.stringify(join(import.meta.dirname, '../examples/orders/agent.ts'));

  it('is off unless asked for; true takes the defaults; an object keeps its parts', async () => {
    expect(await load(`{ agents: ${agents} }`)).not.toHaveProperty('versioning');
    expect(await load(`{ agents: ${agents}, versioning: false }`)).not.toHaveProperty('versioning');
    expect(await load(`{ agents: ${agents}, versioning: true }`)).toMatchObject({ versioning: {} });
    const parts = "{ deploymentName: 'support', buildId: 'abc123', defaultBehavior: 'auto-upgrade' }";
    expect(await load(`{ agents: ${agents}, versioning: ${parts} }`)).toMatchObject({
      versioning: { deploymentName: 'support', buildId: 'abc123', defaultBehavior: 'auto-upgrade' },
    });
  });

  it('refuses, in one line, what Temporal or Cairn could not use', async () => {
    const refused = async (versioning: string) =>
      ((await load(`{ agents: ${agents}, versioning: ${versioning} }`)) as Error).message;
    expect(await refused("{ deploymentName: 'a.b' }")).toMatch(
      /`versioning` has a deploymentName Temporal refuses \(deployment name "a\.b" cannot contain "\."/,
    );
    expect(await refused("{ defaultBehavior: 'PINNED' }")).toMatch(
      /`versioning` has defaultBehavior "PINNED", not "pinned" or "auto-upgrade"; it is true, or \{ deploymentName\?, buildId\?, defaultBehavior\? \}/,
    );
    expect(await refused("{ buildID: 'x' }")).toMatch(/`versioning` has an unknown key "buildID"/);
    expect(await refused("{ buildId: ' ' }")).toMatch(/`versioning` has a buildId that is not text/);
    expect(await refused("'pinned'")).toMatch(/`versioning` is "pinned"/);
  });

  it("names the deployment after the nearest package.json's name, else the folder", async () => {
    const root = join(dir, 'deployment-names');
    await mkdir(join(root, 'with-package', 'src'), { recursive: true });
    await writeFile(join(root, 'with-package', 'package.json'), JSON.stringify({ name: '@acme/support.agents' }));
    expect(defaultDeploymentName(join(root, 'with-package', 'src'))).toBe('@acme/support-agents');
    await mkdir(join(root, 'nameless', 'inner'), { recursive: true });
    await writeFile(join(root, 'nameless', 'package.json'), '{}');
    expect(defaultDeploymentName(join(root, 'nameless', 'inner'))).toBe('inner');
    expect(((await load(`{ agents: ${agents} }`)) as { deploymentName: string }).deploymentName).toBe(
      defaultDeploymentName(dir),
    );
  });
});

describe("a project config's deployGate", () => {
  const agents = JSON.stringify(join(import.meta.dirname, '../examples/orders/agent.ts'));

  it('resolves the eval module from the config and keeps the thresholds', async () => {
    const project = (await load(
      `{ agents: ${agents}, deployGate: { eval: './evals/gate.ts', exportName: 'v2', maxChanged: 0.1, maxNewAsks: 0, allowErrors: true } }`,
    )) as { deployGate: unknown };
    expect(project.deployGate).toEqual({
      eval: join(dir, 'evals/gate.ts'),
      exportName: 'v2',
      maxChanged: 0.1,
      maxNewAsks: 0,
      allowErrors: true,
    });
    expect(await load(`{ agents: ${agents} }`)).not.toHaveProperty('deployGate');
  });

  it('refuses, in one line, an entry the gate could not use', async () => {
    const refused = async (gate: string) =>
      ((await load(`{ agents: ${agents}, deployGate: ${gate} }`)) as Error).message;
    expect(await refused('{ maxChanged: 0.1 }')).toMatch(/`deployGate` needs `eval`, the eval module; it is \{ eval:/);
    expect(await refused("{ eval: './g.ts', maxChanged: 10 }")).toMatch(
      /`deployGate` has maxChanged 10: it is a share from 0 to 1/,
    );
    expect(await refused("{ eval: './g.ts', maxNewAsks: 0.5 }")).toMatch(/maxNewAsks 0.5: it is a whole number/);
    expect(await refused("{ eval: './g.ts', maxChange: 0.5 }")).toMatch(/`deployGate` has an unknown key "maxChange"/);
    expect(await refused("'./g.ts'")).toMatch(/`deployGate` is "\.\/g\.ts"/);
    expect(unknownKeyText('gate')).toContain('did you mean `deployGate`?');
  });
});
