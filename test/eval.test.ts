/**
 * `cairn eval` on a real dev server: runs of the test agent are recorded (a clarification, a
 * reviewed refund, a `once` refund, a lookup, a loop a person ends), then candidates that change
 * behaviour in known ways are evaluated against them. The report must name exactly the decisions
 * that changed, the baseline lane must reproduce every recording, and no tool with side effects
 * may run.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { runEval, type RunEvalOptions } from '../runtime/eval/run-eval.js';
import type { CaseReport, EvalReport } from '../runtime/eval/eval-results.js';
import { exportCases } from '../runtime/eval/eval-cases.js';
import { htmlReport, junitXml, summaryText } from '../runtime/eval/eval-report.js';
import {
  answerClarificationSignal,
  answerClarificationUpdate,
  extendBudgetUpdate,
  reviewToolCallUpdate,
  type AgentRunInput,
  type AgentRunResult,
} from '../workflows/contract/index.js';
import { calls } from './fixtures/tools.js';
import { awaiting, waitFor } from './support/runs.js';
import { BUDGET_POLICY, CHANGED, PROMPTS, PromptScripts, RECORDED } from './support/eval-scripts.js';
import { serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';

const MODULE = join(import.meta.dirname, 'fixtures/evals.ts');
let w: TestWorker;
let connection: NativeConnection;
let dir: string;
let effects: Record<string, number>;

beforeAll(async () => {
  w = await startTestWorker({ models: { 'eval-record': new PromptScripts(RECORDED) } });
  connection = await NativeConnection.connect({ address: serverAddress() });
  dir = await mkdtemp(join(tmpdir(), 'cairn-eval-'));
  const model = 'scripted:eval-record';
  const record = async (
    prompt: string,
    people?: (handle: Awaited<ReturnType<TestWorker['start']>>) => Promise<void>,
    policy?: AgentRunInput['policy'],
  ) => {
    const handle = await w.start({ agent: 'test', prompt, model, ...(policy && { policy }) });
    await people?.(handle);
    const result: AgentRunResult = await handle.result();
    await writeFile(join(dir, `${prompt.replace(/\W+/g, '-')}.json`), historyToJSON(await handle.fetchHistory()));
    return { result, workflowId: handle.workflowId };
  };
  const answer = (text: string) => async (handle: Awaited<ReturnType<TestWorker['start']>>) => {
    const state = await awaiting(handle, 'awaiting_clarification');
    await handle.executeUpdate(answerClarificationUpdate, { args: [{ id: state.clarification!.id, answer: text }] });
  };
  const [helper] = await Promise.all([
    record(PROMPTS.helper),
    record(PROMPTS.redeliver, async (handle) => {
      const state = await awaiting(handle, 'awaiting_clarification');
      const id = state.clarification!.id;
      // An empty answer by Signal, which the run ignores, before the real one.
      await handle.signal(answerClarificationSignal, { id, answer: '   ' });
      await handle.executeUpdate(answerClarificationUpdate, { args: [{ id, answer: 'afternoon please' }] });
    }),
    record(PROMPTS.refund, async (handle) => {
      const state = await awaiting(handle, 'awaiting_review');
      const { toolCallId, argsHash } = state.reviews[0]!;
      await handle.executeUpdate(reviewToolCallUpdate, {
        args: [{ toolCallId, argsHash, decision: { type: 'accept' } }],
      });
    }),
    record(PROMPTS.small),
    record(PROMPTS.status),
    record(PROMPTS.bad, answer('Give up, please.')),
    record(
      PROMPTS.budget,
      async (handle) => {
        const state = await awaiting(handle, 'awaiting_budget');
        const id = state.budget!.pending!.id;
        await handle.executeUpdate(extendBudgetUpdate, { args: [{ id, decision: { type: 'extend', tokens: 200 } }] });
      },
      BUDGET_POLICY,
    ),
  ]);
  // The helper's own run (an agent tool's child), beside its parent's: it serves the parent's lanes.
  const child = w.client.workflow.getHandle(`${helper.workflowId}/1.1`);
  await writeFile(join(dir, 'helper-child.json'), historyToJSON(await child.fetchHistory()));
  // Cases that cannot be evaluated: a corrupt file, and a run of another agent.
  await writeFile(join(dir, 'zz-corrupt.json'), '{"events": [ {"eventId": "1", "eventTy');
  await copyFile(join(import.meta.dirname, 'histories/agent-tool-child.json'), join(dir, 'zz-helper.json'));
  effects = { ...calls };
}, 120_000);

afterAll(async () => {
  await connection?.close();
  await w?.stop();
});

const options = (exportName: string): RunEvalOptions => ({
  module: MODULE,
  exportName,
  cases: { histories: [dir] },
  // The folder holds a corrupt file and another agent's run on purpose: reported, not stopping it.
  allowErrors: true,
  // Each evaluation runs its baselines (the cache has a test of its own).
  cacheDir: false,
  client: w.client,
  connection,
  models: { scripts: { 'eval-same': new PromptScripts(RECORDED), 'eval-changed': new PromptScripts(CHANGED) } },
});
const evaluate = (exportName: string): Promise<EvalReport> => runEval(options(exportName));

const byPrompt = (report: EvalReport, prompt: string): CaseReport =>
  report.cases.find((item) => item.prompt === prompt)!;
const kinds = (item: CaseReport) =>
  (item.changes ?? []).map((change) => `${change.kind}${change.tool ? `:${change.tool}` : ''}`);

describe('cairn eval', () => {
  it('finds no change when the candidate takes the recorded decisions, and reports bad cases one by one', async () => {
    const report = await evaluate('same');
    expect(report.summary).toMatchObject({
      cases: 9,
      errors: 2,
      evaluated: 7,
      changedCases: 0,
      harnessAgreement: 1,
      newHumanAsks: 0,
    });
    expect(report.summary.candidate.passRate).toBe(1);
    expect(
      report.cases
        .filter((item) => item.error)
        .map((item) => item.error!.code)
        .sort(),
    ).toEqual(['other_agent', 'unreadable']);
    for (const item of report.cases.filter((c) => !c.error)) {
      expect(item.drift).toEqual([]);
      expect(item.candidate!.served.refused).toBe(0);
    }
    // The people were answered from the recording: the question by its text, the review by its arguments.
    expect(byPrompt(report, PROMPTS.redeliver).candidate!.trace.clarifications).toBe(1);
    expect(byPrompt(report, PROMPTS.refund).candidate!.trace.reviews).toBe(1);
    // The agent tool's child run, served from the child's own recording: the helper's lookup did not run.
    expect(byPrompt(report, PROMPTS.helper)).toMatchObject({ harnessAgrees: true, changes: [] });
    expect(byPrompt(report, PROMPTS.helper).candidate!.trace.answer).toBe('The helper says A-8 shipped.');
    // And the budget request with the recorded extension.
    expect(byPrompt(report, PROMPTS.budget).candidate!.trace).toMatchObject({ budgets: 1, outcome: 'answered' });
    expect(report.summary.baseline.costUsd).toBeCloseTo(0.03);
    expect(report.passed).toBe(true);
    expect(calls).toEqual(effects);
  }, 180_000);

  it('names exactly the decisions a changed model takes, runs no tool, and crosses the gate on a new person', async () => {
    const report = await evaluate('changed');
    expect(report.summary.harnessAgreement).toBe(1);
    expect(kinds(byPrompt(report, PROMPTS.refund))).toEqual(['tool_skipped:lookup_order', 'turns']);
    expect(byPrompt(report, PROMPTS.refund).pass).toBe(true);

    const small = byPrompt(report, PROMPTS.small);
    expect(small.changes!.find((c) => c.kind === 'arguments_changed')?.text).toMatch(/amount: 20 → 70/);
    expect(small.candidate!.newAsks).toEqual([{ kind: 'review', text: expect.stringMatching(/^issue_refund/) }]);
    expect(small.pass).toBe(false);

    const status = byPrompt(report, PROMPTS.status);
    // Strict: the call the recording lacks is refused as unavailable, and the planner disables the tool.
    expect(kinds(status)).toEqual(['arguments_changed:lookup_order', 'disabled_tools']);
    expect(status.candidate!.served.refused).toBe(1);
    expect(status.candidate!.failures.join()).toMatch(/recording has no call of lookup_order/);

    const redeliver = byPrompt(report, PROMPTS.redeliver);
    expect(kinds(redeliver)).toEqual(['answer']);
    expect(redeliver.candidate!.scores[0]).toMatchObject({ name: 'exact', pass: false });
    expect(kinds(byPrompt(report, PROMPTS.bad))).toEqual([]);

    expect(report.gates.find((g) => g.gate === 'failOnNewHumanAsk')).toMatchObject({ crossed: true, actual: 1 });
    // The budget case decides the same at twice the price: no decision changed, the cost gate is crossed.
    expect(kinds(byPrompt(report, PROMPTS.budget))).toEqual([]);
    expect(report.gates.find((g) => g.gate === 'maxCostIncrease')).toMatchObject({ crossed: true, limit: 0.5 });
    expect(report.passed).toBe(false);
    expect(calls).toEqual(effects);

    // The same report for people and for CI.
    expect(summaryText(report)).toMatch(/no longer calls lookup_order/);
    const junit = junitXml(report);
    expect(junit).toMatch(/<testcase [^>]*name="[^"]+"[^>]*><failure type="case_failed"/);
    expect(junit).toMatch(/name="failOnNewHumanAsk"><failure/);
    const html = htmlReport(report);
    expect(html).toMatch(/amount: 20 → 70/);
    expect((html.match(/<svg /g) ?? []).length).toBe(3);
  }, 180_000);

  it('runs only read-only tools live, and serves the nearest recorded call otherwise', async () => {
    const report = await evaluate('changedLive');
    const status = byPrompt(report, PROMPTS.status);
    expect(status.candidate!.served).toMatchObject({ live: 1, refused: 0 });
    expect(calls.lookup_order).toBe((effects.lookup_order ?? 0) + 1);
    expect(calls.issue_refund).toBe(effects.issue_refund);
    effects = { ...calls };
  }, 180_000);

  it('shows a policy that asks a person less often, and a tool version that needs no review', async () => {
    const loops = await evaluate('finalizeLoops');
    const bad = byPrompt(loops, PROMPTS.bad);
    expect(kinds(bad)).toContain('clarifications');
    expect(bad.changes!.find((c) => c.kind === 'clarifications')).toMatchObject({ before: 1, after: 0 });
    expect(
      loops.cases
        .filter((item) => !item.error && item.prompt !== PROMPTS.bad)
        .every((item) => item.changes!.length === 0),
    ).toBe(true);

    const unreviewed = await evaluate('noRefundReview');
    expect(kinds(byPrompt(unreviewed, PROMPTS.refund))).toEqual(['reviews']);
    expect(calls).toEqual(effects);
  }, 300_000);

  it('reuses the lane runs of an evaluation that already ran (resumable), with what they found', async () => {
    const [same, changed] = await Promise.all([evaluate('same'), evaluate('changed')]);
    for (const report of [same, changed])
      expect(
        report.cases.filter((item) => !item.error).every((item) => item.candidate!.reused && item.baseline!.reused),
      ).toBe(true);
    expect(same.summary).toMatchObject({ changedCases: 0, newHumanAsks: 0 });
    expect(changed.summary).toMatchObject({ changedCases: 4, newHumanAsks: 1 });
    expect(byPrompt(changed, PROMPTS.status).candidate!.failures.join()).toMatch(
      /recording has no call of lookup_order/,
    );
    expect(changed.passed).toBe(false);
  }, 180_000);

  it('runs two evaluations of the same agent at once in one process, on one worker of their lane', async () => {
    // The same lane code, so the same task queue: a second worker of it in this process is refused by Temporal.
    const [same, changed] = await Promise.all([evaluate('together'), evaluate('beside')]);
    expect(same.summary).toMatchObject({ evaluated: 7, changedCases: 0, harnessAgreement: 1, newHumanAsks: 0 });
    expect(changed.summary).toMatchObject({ evaluated: 7, changedCases: 4, newHumanAsks: 1 });
    expect(outcomes(same).cases.map((item) => item.changes)).toEqual(
      outcomes(await evaluate('same')).cases.map((item) => item.changes),
    );
  }, 180_000);

  it('reuses a kept baseline for another evaluation of the same agent, with the report a run gives', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'cairn-eval-cache-'));
    // Lane runs of their own (the export is in the lanes' code): the baselines run, and are kept.
    const miss = await runEval({ ...options('kept'), cacheDir });
    // Another export: lane runs of its own, but the same agent on the same cases.
    const hit = await runEval({ ...options('cached'), cacheDir });
    expect(outcomes(hit)).toEqual(outcomes(miss));
    for (const item of hit.cases.filter((c) => !c.error)) {
      const before = miss.cases.find((c) => c.id === item.id)!;
      // Not run again: the kept baseline is the run the first evaluation made.
      expect(item.baseline!).toMatchObject({ reused: true, workflowId: before.baseline!.workflowId });
      expect(item.candidate!.workflowId).not.toBe(before.candidate!.workflowId);
    }
    expect(hit.summary).toMatchObject({ evaluated: 7, changedCases: 0, harnessAgreement: 1 });
  }, 180_000);

  it('takes its cases from a visibility query, and exports them as files', async () => {
    const query = `TaskQueue = '${w.taskQueue}' AND ExecutionStatus = 'Completed'`;
    // Only the top-level runs: the helper's child run comes with its parent.
    const parents = `${query} AND ParentWorkflowId IS NULL`;
    // Visibility lags the runs a little: wait until it lists all eight (seven runs and the helper's child).
    await waitFor(async () => ((await w.client.workflow.count(query)).count === 8 ? true : undefined), 'visibility');
    const exported = await mkdtemp(join(tmpdir(), 'cairn-eval-export-'));
    const files = await exportCases(w.client, { query: parents, dir: exported });
    expect(files).toHaveLength(8);
    expect(files.filter((file) => file.endsWith('_1.1.json'))).toHaveLength(1);
    const fromFiles = await runEval({ ...options('same'), cases: { histories: [exported] } });
    const fromQuery = await runEval({ ...options('same'), cases: { query: parents } });
    expect(fromFiles.summary).toMatchObject({ cases: 7, errors: 0, changedCases: 0, harnessAgreement: 1 });
    expect(fromQuery.summary).toMatchObject({ cases: 7, errors: 0, changedCases: 0, harnessAgreement: 1 });
    // The same runs as the files: their lane runs are reused, not run again.
    expect(fromQuery.cases.every((item) => item.candidate!.reused)).toBe(true);
  }, 180_000);

  it('is a command: exit 0 when no gate is crossed, 1 when one is, with JUnit, HTML and JSON reports', async () => {
    const out = await mkdtemp(join(tmpdir(), 'cairn-eval-out-'));
    const args = (name: string) => [
      'eval',
      MODULE,
      '--export-name',
      name,
      '--histories',
      dir,
      '--config',
      join(import.meta.dirname, 'fixtures/eval.config.ts'),
      '--allow-errors',
      '--junit',
      join(out, `${name}.xml`),
      '--html',
      join(out, `${name}.html`),
      '--report',
      join(out, `${name}.json`),
    ];
    // Without TEMPORAL_ADDRESS, on a dev server of its own (the lane runs are all new there).
    const [same, unreviewed, embedded] = await Promise.all([
      cairn(args('same')),
      cairn(args('noRefundReview')),
      // Every workflow task logs TMPRL1104 (a task over 0 s): the SDK's lines go to stderr, never into the JSON.
      cairn([...args('same').slice(0, -6), '--json'], false, { TEMPORAL_WORKFLOW_TASK_DURATION_WARN_SECONDS: '0' }),
    ]);
    expect(embedded.stderr).toMatch(/TMPRL1104/);
    expect(same.stdout).toMatch(/Evaluated 7 of 9 case\(s\)/);
    expect(same.code, same.stderr).toBe(0);
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(JSON.parse(embedded.stdout)).toMatchObject({ passed: true, summary: { evaluated: 7, harnessAgreement: 1 } });
    expect(JSON.parse(embedded.stdout).cases.every((item: CaseReport) => item.error || !item.candidate!.reused)).toBe(
      true,
    );
    expect(unreviewed.stdout).toMatch(/reviews by a person: 1 → 0/);
    expect(unreviewed.code, unreviewed.stderr).toBe(0);
    const failing = await cairn([...args('changed'), '--json']);
    expect(failing.code, failing.stderr).toBe(1);
    expect(JSON.parse(failing.stdout)).toMatchObject({ passed: false, summary: { newHumanAsks: 1 } });
    expect(await readFile(join(out, 'changed.xml'), 'utf8')).toMatch(/<testsuite name="gates"/);
    expect(await readFile(join(out, 'same.html'), 'utf8')).toMatch(/<p id="verdict">Passed/);
    expect(JSON.parse(await readFile(join(out, 'same.json'), 'utf8')).passed).toBe(true);
  }, 300_000);

  it('refuses input it cannot evaluate in one line naming the file, before any run starts', async () => {
    const bad = await mkdtemp(join(tmpdir(), 'cairn-eval-bad-'));
    await writeFile(join(bad, 'not-json.json'), '{"events": [\n  {"eventId": "1",\n  oops');
    await writeFile(join(bad, 'syntax.ts'), "import { same } from './x.js';\nexport default same;\nconst x = ;\n");
    const other = join(import.meta.dirname, 'histories/agent-tool-child.json');
    const valid = join(dir, `${PROMPTS.small.replace(/\W+/g, '-')}.json`);
    const run = (module: string, ...histories: string[]) =>
      cairn(['eval', module, '--export-name', 'same', ...histories.flatMap((file) => ['--histories', file])]);
    const results = {
      missing: await run(MODULE, join(bad, 'missing.json')),
      notJson: await run(MODULE, join(bad, 'not-json.json')),
      otherAgent: await run(MODULE, other),
      validAndOther: await run(MODULE, valid, other),
      syntax: await run(join(bad, 'syntax.ts'), valid),
    };
    const expected = {
      missing: /missing\.json does not exist/,
      notJson: /not-json\.json as a history: .*line 3/,
      otherAgent: /agent-tool-child\.json: This run is of agent "helper", not "test"/,
      validAndOther: /agent-tool-child\.json: This run is of agent "helper"/,
      syntax: /syntax\.ts:3: /,
    };
    for (const [name, result] of Object.entries(results)) {
      expect(result.code, `${name}: ${result.stdout}`).toBe(1);
      expect(result.stdout, name).toBe('');
      expect(result.stderr.trim().split('\n'), name).toEqual([
        expect.stringMatching(expected[name as keyof typeof expected]),
      ]);
    }
  }, 180_000);

  it('gives the report of an uncrashed evaluation when it is killed mid-way and run again', async () => {
    const out = await mkdtemp(join(tmpdir(), 'cairn-eval-resume-'));
    const gate = join(out, 'gate');
    const args = [
      ...['eval', MODULE, '--export-name', 'resumed', '--histories', dir, '--allow-errors', '--concurrency', '1'],
      ...['--config', join(import.meta.dirname, 'fixtures/eval.config.ts')],
    ];
    // Killed amid the last case (the status lookup's model turn waits on the gate): one case at a time, in
    // the files' order, so the six before it have closed their lane runs.
    const killed = spawnCairn(args, { CAIRN_TEST_EVAL_GATE: gate });
    await waitFor(
      async () => {
        killed.running();
        return existsSync(`${gate}.entered`) || undefined;
      },
      'the evaluation to reach its last case',
      120_000,
    );
    process.kill(-killed.child.pid!, 'SIGKILL');
    await killed.exited;
    const again = await cairn([...args, '--report', join(out, 'resumed.json')]);
    expect(again.code, again.stderr).toBe(0);
    const resumed: EvalReport = JSON.parse(await readFile(join(out, 'resumed.json'), 'utf8'));
    const uncrashed = await evaluate('same');
    expect(resumed.summary).toMatchObject({ changedCases: 0, harnessAgreement: 1, newHumanAsks: 0 });
    expect(outcomes(resumed)).toEqual(outcomes(uncrashed));
  }, 300_000);

  it('stops at once on Ctrl-C (SIGINT), with exit code 130', async () => {
    const gate = join(await mkdtemp(join(tmpdir(), 'cairn-eval-interrupt-')), 'gate');
    const running = spawnCairn(
      [
        ...['eval', MODULE, '--export-name', 'interrupted', '--histories', dir, '--allow-errors', '--concurrency', '1'],
        ...['--config', join(import.meta.dirname, 'fixtures/eval.config.ts')],
      ],
      { CAIRN_TEST_EVAL_GATE: gate },
    );
    await waitFor(
      async () => {
        running.running();
        return existsSync(`${gate}.entered`) || undefined;
      },
      'the evaluation to reach its last case',
      120_000,
    );
    running.child.kill('SIGINT');
    const { code, stderr } = await running.exited;
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/interrupted; run it again to resume it/);
  }, 300_000);
});

/** What a report says of each case and in total, without timings or whether a lane run was reused. */
function outcomes(report: EvalReport) {
  const lane = (item: CaseReport['candidate']) =>
    item && {
      trace: { ...item.trace, latencyMs: undefined, durationMs: undefined },
      pass: item.pass,
      failures: item.failures,
      newAsks: item.newAsks,
      served: item.served,
      mismatches: item.mismatches,
    };
  return {
    passed: report.passed,
    cases: report.cases.map((item) => ({
      id: item.id,
      error: item.error?.code,
      harnessAgrees: item.harnessAgrees,
      changes: item.changes,
      drift: item.drift,
      pass: item.pass,
      baseline: lane(item.baseline),
      candidate: lane(item.candidate),
    })),
  };
}

/** `cairn ...args` as a process group of its own (tsx as a loader, not a parent process): killed, it leaves nothing behind. */
function spawnCairn(args: readonly string[], extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], {
    cwd: PACKAGE_ROOT,
    env: { ...cleanEnv(), ...extraEnv, TEMPORAL_ADDRESS: serverAddress() },
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr })),
  );
  /** Fails a wait at once when the command has already ended (with what it said). */
  const running = () => {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`cairn ${args.join(' ')} ended (${child.exitCode ?? child.signalCode}): ${stderr}`);
  };
  return { child, exited, running };
}

/** This process's environment without Temporal or Cairn settings. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('TEMPORAL_') && !key.startsWith('CAIRN_')),
  );
}

/** Runs `cairn ...args` on this Node, against the test server, without other Temporal or Cairn settings. */
function cairn(
  args: readonly string[],
  server = true,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith('TEMPORAL_') && !key.startsWith('CAIRN_')),
    ),
    ...extraEnv,
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(PACKAGE_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'cli/main.ts', ...args],
      { cwd: PACKAGE_ROOT, env: server ? { ...env, TEMPORAL_ADDRESS: serverAddress() } : env, timeout: 240_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}
