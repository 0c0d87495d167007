/**
 * An evaluation as a deploy gate, on the real dev server: build v1 of the rollout agents
 * (test/fixtures/rollout-agents.ts) runs `rollout_gate` runs (the workers' default: auto-upgrade) that wait on a review;
 * build v2 changes the prompt and `lookup_order`'s schema. `cairn deploy set-current|gate`, from
 * v2's "checkout" (test/fixtures/rollout-gate-v2.config.ts, whose deployGate names the eval module),
 * replays the runs that would move, then evaluates v2's change on them and on the agent's closed
 * runs: it names exactly the runs whose decisions change, refuses over the threshold (the current
 * build stays v1), passes and promotes under a looser one; and a roll back to v1, from v1's checkout,
 * is gated the same way.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { resolveModel } from '../activities/model/index.js';
import { stateQuery } from '../workflows/contract/index.js';
import { describeDeployment, movingRunsQuery, setCurrentBuild } from '../runtime/deployments.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { createCairnWorker } from '../runtime/worker.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { rolloutAgents, type Build } from './fixtures/rollout-agents.js';
import { GATE_MODEL, GATE_PROMPTS, gateModel } from './fixtures/rollout-gate-scripts.js';
import { connectClient, serverAddress } from './support/temporal.js';
import { waitFor } from './support/runs.js';
import { cairnCli } from './support/cairn-cli.js';

const cairn = (args: readonly string[]) => cairnCli(args, 170_000);

describe('an evaluation as a deploy gate', { timeout: 420_000 }, () => {
  const deploymentName = `gate-${randomUUID().slice(0, 8)}`;
  const taskQueue = `gate-${randomUUID()}`;
  let client: Client;
  let connection: NativeConnection;
  const workers: { worker: Worker; running: Promise<void> }[] = [];
  const open: WorkflowHandle[] = [];

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    client = await connectClient();
    connection = await NativeConnection.connect({ address: serverAddress() });
  });

  afterAll(async () => {
    await Promise.all(
      open.map((run) =>
        client.workflow
          .getHandle(run.workflowId)
          .terminate()
          .catch(() => {}),
      ),
    );
    for (const { worker } of workers) worker.shutdown();
    await Promise.all(workers.map(({ running }) => running));
    await connection?.close();
    await client?.connection.close();
  });

  async function startBuild(build: Build): Promise<string> {
    const bundle = await bundleWorkflows(join(PACKAGE_ROOT, `test/fixtures/rollout-${build}-workflows.ts`));
    const model = gateModel();
    const worker = await createCairnWorker({
      connection,
      client,
      taskQueue,
      agents: rolloutAgents(build),
      resolveModel: (spec) => resolveModel(spec, { scripts: { [GATE_MODEL]: model } }),
      workflowBundle: { code: bundle.code },
      // Temporal's own auto-upgrade (the worker's default): the runs move at their next workflow task.
      versioning: { deploymentName, defaultBehavior: 'auto-upgrade' },
    });
    workers.push({ worker, running: worker.run() });
    const buildId = worker.options.workerDeploymentOptions!.version.buildId;
    await waitFor(
      async () => ((await describeDeployment(client, deploymentName))?.builds ?? []).find((b) => b.buildId === buildId),
      `build ${build} registered`,
    );
    return buildId;
  }

  const current = async () => (await describeDeployment(client, deploymentName))?.current;
  const gate = (subcommand: string, buildId: string, build: Build, ...more: string[]) =>
    cairn([
      'deploy',
      subcommand,
      '--deployment-name',
      deploymentName,
      '--build-id',
      buildId,
      '--task-queue',
      taskQueue,
      '--config',
      `test/fixtures/rollout-gate-${build}.config.ts`,
      ...more,
    ]);

  it('refuses v2 over the threshold naming the runs whose decisions change, promotes it under a looser one, and gates the roll back', async () => {
    const [v1, v2] = await Promise.all([startBuild('v1'), startBuild('v2')]);
    await setCurrentBuild(client, { deploymentName, buildId: v1 });
    const start = (prompt: string) =>
      client.workflow.start('agentRun', {
        taskQueue,
        workflowId: `${deploymentName}-${randomUUID().slice(0, 8)}`,
        args: [{ agent: 'rollout_gate', prompt, model: `scripted:${GATE_MODEL}`, searchAttributes: true }],
      });
    // The agent's closed run (the eval's own case), and four runs waiting on a review.
    const hello = await start(GATE_PROMPTS.hello);
    const waiting = await Promise.all(
      [GATE_PROMPTS.same1, GATE_PROMPTS.same2, GATE_PROMPTS.lookup, GATE_PROMPTS.asks].map(start),
    );
    open.push(...waiting);
    expect(await hello.result()).toMatchObject({ answer: 'Hello from the rollout.' });
    for (const run of waiting)
      await waitFor(
        async () => ((await run.query(stateQuery)).phase === 'awaiting_review' ? true : undefined),
        run.workflowId,
      );
    const moving = `${movingRunsQuery({ deploymentName, taskQueue })} AND CairnAgent = "rollout_gate"`;
    await waitFor(async () => ((await client.workflow.count(moving)).count === 4 ? true : undefined), 'runs visible');
    await waitFor(
      async () =>
        (await client.workflow.count(`WorkflowId = "${hello.workflowId}" AND ExecutionStatus = "Completed"`)).count ===
          1 || undefined,
      'closed run visible',
    );
    const [same1, same2, lookup, asks] = waiting.map((run) => run.workflowId) as [string, string, string, string];

    // The config's deployGate: at most a quarter of the cases may change. Two of five do: refused.
    const refused = await gate('set-current', v2, 'v2', '--json');
    expect(refused.code, refused.stderr).toBe(1);
    const verdict = JSON.parse(refused.stdout);
    expect(verdict).toMatchObject({ passed: false, promoted: false, replayed: { ok: 4 } });
    expect(verdict.evaluation).toMatchObject({ cases: 5, evaluated: 5, openRuns: 4, errors: [] });
    expect(verdict.evaluation.changed.map((item: { id: string }) => item.id).sort()).toEqual([lookup, asks].sort());
    const byId = Object.fromEntries(verdict.evaluation.changed.map((item: { id: string }) => [item.id, item]));
    expect(byId[lookup]).toMatchObject({ open: true, newAsks: [] });
    expect(byId[lookup].decisions).toEqual(
      expect.arrayContaining([
        'no longer calls issue_credit (called once before)',
        expect.stringMatching(/^now calls lookup_order/),
      ]),
    );
    expect(byId[asks]).toMatchObject({ open: true, newAsks: ['review: issue_credit {"orderId":"a-3"}'] });
    expect(byId[asks].decisions).toEqual([
      expect.stringMatching(/^calls issue_credit \(call 1\) with other arguments: orderId: "A-3" → "a-3"/),
    ]);
    const crossed = verdict.evaluation.gates
      .filter((g: { crossed: boolean }) => g.crossed)
      .map((g: { gate: string }) => g.gate);
    expect(crossed.sort()).toEqual(['failOnNewHumanAsk', 'maxChanged']);
    expect(verdict.evaluation.gates).toContainEqual({ gate: 'maxChanged', limit: 0.25, actual: 0.4, crossed: true });
    expect(refused.stderr).toContain(`the evaluation refuses build "${v2}"`);
    expect(refused.stderr).toContain(lookup);
    expect(await current()).toBe(v1);
    expect([same1, same2].some((id) => refused.stdout.includes(`"id":"${id}"`))).toBe(false);

    // Looser thresholds: `gate` passes and promotes nothing; set-current promotes.
    const loose = ['--max-changed', '0.5', '--max-new-asks', '1'];
    const passed = await gate('gate', v2, 'v2', ...loose);
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stdout).toContain(`open run ${lookup}:`);
    expect(passed.stdout).toContain(`The gate passes build "${v2}"; nothing was promoted`);
    expect(await current()).toBe(v1);
    const promoted = await gate('set-current', v2, 'v2', ...loose);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stdout).toContain(
      `Build "${v2}" is the current build of deployment "${deploymentName}" (it was "${v1}")`,
    );
    expect(await current()).toBe(v2);

    // Back to v1, from v1's checkout: its deployGate evaluates v1's change on the runs that would move back.
    const back = await gate('set-current', v1, 'v1', '--json');
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({
      passed: true,
      promoted: 'current',
      previous: v2,
      evaluation: { candidate: 'build v1', openRuns: 4, changed: [] },
    });
    expect(await current()).toBe(v1);
  });
});
