/**
 * `cairn replay` as a subprocess: recorded histories replay cleanly against the test bundle's
 * workflows file; a deliberately nondeterministic agentRun (a timer before the real one) is caught
 * and named, exit 1; and a run on the test server replays from a visibility query and by id.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptStep } from '../testing/script-steps.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';
import { cairnCli, type CliOutcome } from './support/cairn-cli.js';

type Outcome = CliOutcome;

const FIXTURE_WORKFLOWS = join(PACKAGE_ROOT, 'test', 'fixtures', 'workflows.ts');

/** Runs `cairn ...args` on this Node, against the test server. */
const cairn = (args: readonly string[], timeout = 110_000): Promise<Outcome> => cairnCli(args, timeout);

const lines = (text: string) => text.trimEnd().split('\n');

/** Recorded runs: tool calls, a review, agent tools with a child, both ends of a continue-as-new chain, MCP tools. */
const HISTORIES = {
  'skeleton-tool-call': 'test-2a1bca17-e457-4e8e-ac6e-7442a34ba22e',
  'review-accept': 'test-618c2327-5a76-47e0-ade5-2183170e4c8d',
  'agent-tool-parent': 'test-77769073-7caf-4028-83d7-7f47e4f78e13',
  'continue-as-new-first-run': 'test-f0814bc5-56c6-4f7f-ba04-c4041916bbc3',
  'continue-as-new-last-run': 'test-f0814bc5-56c6-4f7f-ba04-c4041916bbc3',
  'mcp-tools-run': 'mcp-661a4ad6-7deb-47ac-aa72-aaf004a0b3fb',
} as const;
const files = Object.keys(HISTORIES).map((name) => `test/histories/${name}.json`);

describe('cairn replay', { timeout: 120_000 }, () => {
  let temp: string;
  beforeAll(async () => {
    // Inside the package, so the bundler resolves @temporalio/workflow from its node_modules.
    await mkdir(join(PACKAGE_ROOT, '.cache'), { recursive: true });
    temp = await mkdtemp(join(PACKAGE_ROOT, '.cache', 'replay-test-'));
  });
  afterAll(() => rm(temp, { recursive: true, force: true }));

  it('prints ok for each recorded history replayed against the workflows it was recorded with', async () => {
    const outcome = await cairn(['replay', ...files, '--workflows', 'test/fixtures/workflows.ts']);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stderr).toBe('');
    expect(lines(outcome.stdout)).toEqual([
      ...Object.entries(HISTORIES).map(([name, workflowId]) => `ok ${workflowId} (test/histories/${name}.json)`),
      `Replayed ${files.length} histories against test/fixtures/workflows.ts: ${files.length} ok.`,
    ]);
  });

  it('catches an agentRun that schedules a timer before delegating to the real one: NONDETERMINISTIC, exit 1', async () => {
    const changed = join(temp, 'workflows.ts');
    await writeFile(
      changed,
      `import { sleep } from '@temporalio/workflow';\n` +
        `import { agentRun as recordedAgentRun } from ${JSON.stringify(FIXTURE_WORKFLOWS)};\n` +
        `export { mcpAgentRun } from ${JSON.stringify(FIXTURE_WORKFLOWS)};\n\n` +
        `/** The same agent run, but a timer first: a command the recorded runs never issued. */\n` +
        `export async function agentRun(input: Parameters<typeof recordedAgentRun>[0]) {\n` +
        `  await sleep('1 second');\n` +
        `  return recordedAgentRun(input);\n` +
        `}\n`,
    );
    const outcome = await cairn([
      'replay',
      'test/histories/skeleton-tool-call.json',
      'test/histories/review-accept.json',
      'test/histories/mcp-tools-run.json',
      '--workflows',
      changed,
    ]);
    expect(outcome.code, outcome.stderr).toBe(1);
    const out = lines(outcome.stdout);
    expect(out[0]).toMatch(
      /^NONDETERMINISTIC test-2a1bca17-e457-4e8e-ac6e-7442a34ba22e \(test\/histories\/skeleton-tool-call\.json\): .*Nondeterminism error: Timer machine does not handle this event: .*ActivityTaskScheduled/,
    );
    expect(out[1]).toMatch(
      /^NONDETERMINISTIC test-618c2327-5a76-47e0-ade5-2183170e4c8d \(test\/histories\/review-accept\.json\): .*Timer/,
    );
    // One bad history hides no other: the MCP run, whose workflow is unchanged, still replays.
    expect(out[2]).toBe('ok mcp-661a4ad6-7deb-47ac-aa72-aaf004a0b3fb (test/histories/mcp-tools-run.json)');
    expect(out[3]).toMatch(/^Replayed 3 histories against .*workflows\.ts: 1 ok, 2 nondeterministic\.$/);
    expect(lines(outcome.stderr)).toEqual([
      'cairn replay: 2 of 3 histories do not replay on this build; do not deploy it over those runs (docs/upgrades.md).',
    ]);
  });

  // How Cairn's own changes to agentRun are made within a release line (docs/upgrades.md): the same timer, guarded.
  it('replays every history against an agentRun whose new timer is guarded by patched(): the runs recorded before it replay ok', async () => {
    const guarded = join(temp, 'guarded-workflows.ts');
    await writeFile(
      guarded,
      `import { patched, sleep } from '@temporalio/workflow';\n` +
        `import { agentRun as recordedAgentRun } from ${JSON.stringify(FIXTURE_WORKFLOWS)};\n` +
        `export { mcpAgentRun } from ${JSON.stringify(FIXTURE_WORKFLOWS)};\n\n` +
        `/** The same agent run, with a timer first for runs that start on this build only. */\n` +
        `export async function agentRun(input: Parameters<typeof recordedAgentRun>[0]) {\n` +
        `  if (patched('cairn-test-timer-first')) await sleep('1 second');\n` +
        `  return recordedAgentRun(input);\n` +
        `}\n`,
    );
    const outcome = await cairn(['replay', ...files, '--workflows', guarded]);
    expect(outcome.code, outcome.stdout + outcome.stderr).toBe(0);
    const out = lines(outcome.stdout);
    expect(out.slice(0, -1)).toEqual(
      Object.entries(HISTORIES).map(([name, workflowId]) => `ok ${workflowId} (test/histories/${name}.json)`),
    );
    expect(out.at(-1)).toMatch(
      new RegExp(`^Replayed ${files.length} histories against .*guarded-workflows\\.ts: ${files.length} ok\\.$`),
    );
  });

  it('replays the whole corpus with the command docs/upgrades.md gives for this repository: every history ok', {
    timeout: 180_000,
  }, async () => {
    const documented = 'npm run --silent cairn -- replay test/histories/*.json --workflows test/fixtures/workflows.ts';
    expect(await readFile(join(PACKAGE_ROOT, 'docs', 'upgrades.md'), 'utf8')).toContain(documented);
    const all = (await readdir(join(PACKAGE_ROOT, 'test', 'histories')))
      .filter((file) => file.endsWith('.json'))
      .sort()
      .map((file) => `test/histories/${file}`);
    const outcome = await cairn(['replay', ...all, '--workflows', 'test/fixtures/workflows.ts'], 170_000);
    expect(outcome.code, outcome.stdout + outcome.stderr).toBe(0);
    expect(lines(outcome.stdout).filter((line) => line.startsWith('ok '))).toHaveLength(all.length);
  });

  it('a history of an agent the project does not serve is UNKNOWN_AGENT, naming the agent, not NONDETERMINISTIC', async () => {
    // This repository's cairn.config.ts serves the orders agent; the recorded run is the test agent's.
    const outcome = await cairn(['replay', 'test/histories/review-accept.json']);
    expect(outcome.code, outcome.stderr).toBe(1);
    expect(lines(outcome.stdout)).toEqual([
      `UNKNOWN_AGENT ${HISTORIES['review-accept']} (test/histories/review-accept.json): agent "test" is not in this build (it has "orders")`,
      'Replayed 1 history against the agents of cairn.config.ts (orders): 0 ok, 1 of an agent not in this build.',
    ]);
  });

  it('refuses a command line with nothing to replay (exit 2) and names an unreadable file (exit 1)', async () => {
    const [nothing, missing] = await Promise.all([
      cairn(['replay', '--workflows', 'test/fixtures/workflows.ts']),
      cairn(['replay', 'test/histories/nope.json', '--workflows', 'test/fixtures/workflows.ts']),
    ]);
    expect(nothing).toMatchObject({ code: 2, stdout: '' });
    expect(lines(nothing.stderr)).toEqual([
      'cairn replay: nothing to replay: name history files, --query or --workflow-id (see cairn replay --help)',
    ]);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(lines(missing.stderr)).toEqual(['cairn replay: test/histories/nope.json does not exist.']);
  });

  describe('from the server', () => {
    let w: TestWorker;
    beforeAll(async () => void (w = await startTestWorker()));
    afterAll(() => w?.stop());

    it('replays a run a visibility query finds, and the same run by --workflow-id (--json: one object a line)', async () => {
      const { model } = w.script([
        scriptStep.call('lookup_order', { orderId: 'A-1001' }),
        scriptStep.text('Order A-1001 has shipped.'),
      ]);
      const handle = await w.start({ agent: 'test', prompt: 'Where is A-1001?', model });
      await handle.result();
      const query = `WorkflowId="${handle.workflowId}"`;
      // Visibility trails the run a little.
      for (let waited = 0; (await w.client.workflow.count(query)).count === 0; waited += 100) {
        if (waited > 10_000) throw new Error(`${query} found nothing in 10 s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const outcome = await cairn([
        'replay',
        '--query',
        query,
        '--workflow-id',
        handle.workflowId,
        '--workflows',
        'test/fixtures/workflows.ts',
        '--json',
      ]);
      expect(outcome.code, outcome.stderr).toBe(0);
      expect(outcome.stderr).toBe('');
      const expected = { workflowId: handle.workflowId, source: `run ${handle.firstExecutionRunId}`, status: 'ok' };
      expect(lines(outcome.stdout).map((line) => JSON.parse(line))).toEqual([
        expect.objectContaining(expected),
        expect.objectContaining(expected),
      ]);
    });
  });
});
