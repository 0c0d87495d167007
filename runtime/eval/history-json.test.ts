import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../package-root.js';
import { historyFromJson, historyToJson } from './history-json.js';

const HISTORY = join(PACKAGE_ROOT, 'test/histories/review-accept.json');
const made: string[] = [];
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('history JSON', () => {
  it("writes and reads the files Temporal's own tools do", async () => {
    const json = JSON.parse(await readFile(HISTORY, 'utf8'));
    const ours = historyFromJson(json);
    expect(JSON.parse(historyToJson(ours))).toEqual(JSON.parse(historyToJSON(historyFromJSON(json))));
    expect(historyToJson(historyFromJson(JSON.parse(historyToJson(ours))))).toBe(historyToJson(ours));
    expect(() => historyFromJson({ events: 'no' })).toThrow(TypeError);
  });

  it('reads and writes histories in a tree where each Temporal package has its own protobufjs (an installed project)', async () => {
    // The tree npm makes beside @grpc/proto-loader's protobufjs 7: a copy of protobufjs 8 under each
    // Temporal package. Inside the checkout, so everything else resolves from its node_modules.
    await mkdir(join(PACKAGE_ROOT, '.cache'), { recursive: true });
    const tree = await mkdtemp(join(PACKAGE_ROOT, '.cache', 'protobufjs-copies-'));
    made.push(tree);
    for (const name of ['proto', 'common']) {
      const to = join(tree, 'node_modules/@temporalio', name);
      await cp(join(PACKAGE_ROOT, 'node_modules/@temporalio', name), to, { recursive: true, dereference: true });
      await cp(join(PACKAGE_ROOT, 'node_modules/protobufjs'), join(to, 'node_modules/protobufjs'), {
        recursive: true,
        dereference: true,
      });
    }
    await mkdir(join(tree, 'app'));
    await cp(join(import.meta.dirname, 'history-json.ts'), join(tree, 'app/history-json.ts'));
    await writeFile(
      join(tree, 'app/check.mts'),
      `import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { historyFromJson, historyToJson } from './history-json.ts';
const json = JSON.parse(readFileSync(${JSON.stringify(HISTORY)}, 'utf8'));
const temporal = createRequire(import.meta.url)('@temporalio/common/lib/proto-utils.js');
let theirs;
try { theirs = temporal.historyToJSON(temporal.historyFromJSON(json)); } catch (error) { theirs = error.message; }
const ours = JSON.parse(historyToJson(historyFromJson(json)));
console.log(JSON.stringify({ theirs, events: ours.events.length, first: ours.events[0].eventType }));
`,
    );
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [join(tree, 'app/check.mts')], { cwd: tree }, (error, stdout, stderr) =>
        error ? reject(new Error(stderr || error.message)) : resolve(stdout),
      ),
    );
    const result = JSON.parse(out.trim().split('\n').at(-1)!);
    // The tree does mix copies: Temporal's own helper fails in it.
    expect(result.theirs).toBe('type must be a Type');
    expect(result).toMatchObject({ events: JSON.parse(await readFile(HISTORY, 'utf8')).events.length });
    expect(result.first).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_STARTED');
  }, 60_000);

  it('is what the evaluation and replay use: no module of theirs loads protobufjs or proto-utils itself', async () => {
    const dirs = ['runtime', 'runtime/eval', 'cli', 'cli/commands', 'client'];
    for (const dir of dirs)
      for (const file of (await readdir(join(PACKAGE_ROOT, dir))).filter(
        (name) => name.endsWith('.ts') && !name.endsWith('.test.ts'),
      )) {
        const text = await readFile(join(PACKAGE_ROOT, dir, file), 'utf8');
        expect(text, `${dir}/${file}`).not.toMatch(
          /^import (?!type)[^;]*from '(protobufjs[^']*|@temporalio\/common\/lib\/proto-utils(\.js)?)';/m,
        );
      }
  });
});
