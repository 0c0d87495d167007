import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProject, unknownKeyText } from './project-config.js';

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
      'unknown key "somethingElse": a config has agents, deps, models, taskQueue, worker.',
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
