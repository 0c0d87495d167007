/**
 * A rolling upgrade under Worker Deployment Versioning, on the real dev server: two builds of the
 * rollout agents (test/fixtures/rollout-agents.ts) in one deployment, each its own bundle and worker
 * on one task queue, build ids derived from the bundles. Runs started on v1 wait on a review while
 * v2 is promoted through `cairn deploy set-current`, whose gate replays only the runs that would
 * move. Then: the pinned run (its agent takes the worker's default) is finished by v1's worker, and
 * its history would not even replay on v2; the auto-upgrade run (its agent's choice) moves to v2
 * while it waits on its review, by continue-as-new (set-current tells it), and a run started with a
 * per-start override moves at its next workflow task, by replay; v2's model sees v2's prompt. Each build's tools and scripted model say which build served them. And an agent's
 * choice on a worker that is not versioned is not reported (Temporal would fail the run's tasks).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { resolveModel } from '../activities/model/index.js';
import { CairnClient } from '../client/cairn-client.js';
import type { AgentRunHandle } from '../client/agent-run-handle.js';
import { describeDeployment, setCurrentBuild } from '../runtime/deployments.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { replayHistories } from '../runtime/replay.js';
import { createCairnWorker } from '../runtime/worker.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep, type Script } from '../testing/script-steps.js';
import { rolloutAgents, type Build } from './fixtures/rollout-agents.js';
import { connectClient, serverAddress } from './support/temporal.js';
import { waitFor } from './support/runs.js';
import { startVersionedBuild, type VersionedBuild } from './support/versioned-build.js';
import { cairnCli } from './support/cairn-cli.js';

const workflowsFile = (build: Build) => `test/fixtures/rollout-${build}-workflows.ts`;

/** `cairn ...args` as a subprocess on the test server. */
const cairn = (args: readonly string[]) => cairnCli(args, 170_000);

/** The run's version as the server records it: behavior and build. */
async function versioningOf(handle: WorkflowHandle) {
  const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
  return { behavior: info?.behavior, buildId: info?.deploymentVersion?.buildId };
}

const PINNED = 1; // temporal.api.enums.v1.VersioningBehavior

describe('rolling upgrade with Worker Deployment Versioning', { timeout: 240_000 }, () => {
  const deploymentName = `rollout-${randomUUID().slice(0, 8)}`;
  const taskQueue = `rollout-${randomUUID()}`;
  const id = randomUUID().slice(0, 8);
  let client: Client;
  let connection: NativeConnection;
  let bundles: Record<Build, { code: string }>;
  const builds: VersionedBuild[] = [];

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    const [v1, v2] = await Promise.all([
      bundleWorkflows(join(PACKAGE_ROOT, workflowsFile('v1'))),
      bundleWorkflows(join(PACKAGE_ROOT, workflowsFile('v2'))),
    ]);
    bundles = { v1: { code: v1.code }, v2: { code: v2.code } };
    client = await connectClient();
    connection = await NativeConnection.connect({ address: serverAddress() });
  });

  afterAll(async () => {
    await Promise.all(builds.map((build) => build.stop()));
    await connection?.close();
    await client?.connection.close();
  });

  /** A worker of `build`: its bundle, its agents' tools, and its scripts under the runs' model names. */
  async function startBuild(build: Build, scripts: Record<string, Script>): Promise<VersionedBuild> {
    const started = await startVersionedBuild({
      name: build,
      connection,
      client,
      taskQueue,
      deploymentName,
      agents: rolloutAgents(build),
      bundle: bundles[build],
      scripts,
    });
    builds.push(started);
    return started;
  }

  /** Accepts the run's held call once it is held; resolves when the Update is done. */
  async function acceptReview(run: AgentRunHandle): Promise<void> {
    const state = await waitFor(async () => {
      const s = await run.state();
      return s.phase === 'awaiting_review' ? s : undefined;
    }, `${run.workflowId} awaiting review`);
    await run.review(state.reviews[0]!, { type: 'accept' });
  }

  it('runs an agent that chooses its versioning on an unversioned worker as before: the choice is not reported', async () => {
    const queue = `unversioned-${randomUUID()}`;
    const scripted = new ScriptedModel('unversioned', [scriptStep.text('Answered unversioned.')]);
    const worker = await createCairnWorker({
      connection,
      client,
      taskQueue: queue,
      agents: rolloutAgents('v1'),
      resolveModel: (spec) => resolveModel(spec, { scripts: { [`unversioned-${id}`]: scripted } }),
      workflowBundle: bundles.v1,
    });
    expect(worker.options.workerDeploymentOptions).toBeUndefined();
    await worker.runUntil(async () => {
      const run = await new CairnClient({ client, taskQueue: queue }).start({
        agent: 'rollout_auto',
        prompt: 'Hello.',
        model: `scripted:unversioned-${id}`,
      });
      // Temporal would fail every workflow task that named a behavior on this worker.
      expect(await run.result()).toMatchObject({ answer: 'Answered unversioned.' });
      const described = await client.workflow.getHandle(run.workflowId).describe();
      expect(described.raw.workflowExecutionInfo?.versioningInfo?.behavior ?? 0).toBe(0);
      expect(described.memo).toMatchObject({ cairnAgent: 'rollout_auto' });
    });
  });

  it('keeps a pinned run on v1 after v2 is current, moves the auto-upgrade run to v2 at its wait, and the override at its next task', async () => {
    const model = (run: string) => `scripted:${run}-${id}`;
    const v1 = await startBuild('v1', {
      [`pinned-${id}`]: [
        scriptStep.call('lookup_order', { orderId: 'A-1' }),
        scriptStep.call('issue_credit', { orderId: 'A-1' }),
        scriptStep.text('Pinned run answered by v1.'),
      ],
      [`auto-${id}`]: [scriptStep.call('issue_credit', { orderId: 'A-2' })],
      [`override-${id}`]: [scriptStep.call('issue_credit', { orderId: 'A-3' })],
    });
    expect(v1.buildId).toMatch(/^cairn@[0-9a-f]{12}$/);
    await setCurrentBuild(client, { deploymentName, buildId: v1.buildId });

    const cairnClient = new CairnClient({ client, taskQueue });
    const pinned = await cairnClient.start({ agent: 'rollout_pinned', prompt: 'Credit A-1.', model: model('pinned') });
    const auto = await cairnClient.start({ agent: 'rollout_auto', prompt: 'Credit A-2.', model: model('auto') });
    // rollout_pinned takes the worker's default (pinned); this one run of it is told to auto-upgrade.
    const override = await cairnClient.start({
      agent: 'rollout_pinned',
      prompt: 'Credit A-3.',
      model: model('override'),
      temporal: { versioningOverride: 'AUTO_UPGRADE' },
    });
    const runs = [pinned, auto, override];
    const handles = runs.map((run) => client.workflow.getHandle(run.workflowId));
    // All three wait on a review, on v1: each by its own behavior.
    for (const run of runs)
      await waitFor(async () => ((await run.state()).phase === 'awaiting_review' ? true : undefined), run.workflowId);
    expect(await versioningOf(handles[0]!)).toEqual({ behavior: PINNED, buildId: v1.buildId });
    // An agent's auto-upgrade run is pinned until it moves itself, at a safe point.
    expect(await versioningOf(handles[1]!)).toEqual({ behavior: PINNED, buildId: v1.buildId });
    expect((await versioningOf(handles[2]!)).buildId).toBe(v1.buildId);

    // v2's workers join the deployment; new runs still go to v1 until it is promoted.
    const v2 = await startBuild('v2', {
      [`pinned-${id}`]: [], // never asked: the pinned run stays on v1 (an empty script fails loudly)
      [`auto-${id}`]: [scriptStep.text('Auto run answered by v2.')],
      [`override-${id}`]: [scriptStep.text('Override run answered by v2.')],
    });
    expect(v2.buildId).not.toBe(v1.buildId);

    // The pinned run's history does not replay on v2 (lookup_order takes a number there): pinning is what keeps it safe.
    const pinnedOnV2 = [];
    for await (const outcome of replayHistories(
      [{ workflowId: pinned.workflowId, history: await handles[0]!.fetchHistory() }],
      { workflowBundle: bundles.v2 },
    ))
      pinnedOnV2.push(outcome);
    expect(pinnedOnV2).toMatchObject([{ status: 'nondeterministic' }]);

    // The gate replays the runs that would move by replay (the override) against v2's code, then
    // promotes, and tells the agent's auto-upgrade run, which moves by continue-as-new.
    await waitFor(
      async () =>
        (
          await client.workflow.count(
            `WorkflowId = "${override.workflowId}" AND TemporalWorkflowVersioningBehavior = "AutoUpgrade"`,
          )
        ).count === 1 || undefined,
      'the override run visible',
    );
    const promoted = await cairn([
      'deploy',
      'set-current',
      '--deployment-name',
      deploymentName,
      '--build-id',
      v2.buildId,
      '--task-queue',
      taskQueue,
      '--workflows',
      workflowsFile('v2'),
    ]);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stdout).toContain(`ok ${override.workflowId}`);
    expect(promoted.stdout).not.toContain(`ok ${auto.workflowId}`);
    expect(promoted.stdout).toContain(`moves to it at its next safe point: ${auto.workflowId}`);
    expect(promoted.stdout).not.toContain(pinned.workflowId);
    expect(promoted.stdout).toContain(
      `Build "${v2.buildId}" is the current build of deployment "${deploymentName}" (it was "${v1.buildId}")`,
    );

    // The auto-upgrade run moved while it waited: a new run of its chain, on v2.
    await waitFor(async () => {
      const state = await auto.state();
      return state.phase === 'awaiting_review' && state.generation === 1 ? state : undefined;
    }, 'the auto-upgrade run waiting on v2');
    // Each run's next workflow task comes with the decision on its review.
    await Promise.all(runs.map(acceptReview));
    expect(await pinned.result()).toMatchObject({ answer: 'Pinned run answered by v1.' });
    expect(await auto.result()).toMatchObject({ answer: 'Auto run answered by v2.' });
    expect(await override.result()).toMatchObject({ answer: 'Override run answered by v2.' });

    // Who served what: v1's worker finished the pinned run; the others' tool call and last model call ran on v2.
    expect(await versioningOf(handles[0]!)).toEqual({ behavior: PINNED, buildId: v1.buildId });
    expect(await versioningOf(handles[1]!)).toEqual({ behavior: PINNED, buildId: v2.buildId });
    expect((await versioningOf(handles[2]!)).buildId).toBe(v2.buildId);
    const pinnedRequests = v1.models[`pinned-${id}`]!.requests;
    expect(pinnedRequests).toHaveLength(3);
    expect(pinnedRequests.at(-1)!.messages[0]).toMatchObject({ content: 'Build v1: you help with orders.' });
    expect(JSON.stringify(pinnedRequests.at(-1)!.messages.at(-1))).toContain('"build":"v1"');
    expect(v2.models[`pinned-${id}`]!.requests).toHaveLength(0);
    for (const run of ['auto', 'override']) {
      const [request, ...more] = v2.models[`${run}-${id}`]!.requests;
      expect(more, run).toHaveLength(0);
      // v2's prompt (the override replayed on v2's code; the auto run took v2's agent when it moved), and the credit v2's tool issued.
      expect(request!.messages[0], run).toMatchObject({ content: 'Build v2: you help with orders.' });
      expect(JSON.stringify(request!.messages.at(-1)), run).toContain('"build":"v2"');
      expect(v1.models[`${run}-${id}`]!.requests, run).toHaveLength(1);
    }

    // v1 drains: no pinned run is open on it any more, so its workers can stop.
    const drained = await waitFor(async () => {
      const deployment = await describeDeployment(client, deploymentName);
      const old = deployment?.builds.find((b) => b.buildId === v1.buildId);
      // Draining until the server's own check (minutes apart) finds it drained.
      return deployment?.current === v2.buildId && /^drain/.test(old?.status ?? '') && old?.pinnedRuns === 0
        ? deployment
        : undefined;
    }, 'v1 drained of pinned runs');
    expect(drained.builds.map((b) => b.buildId)).toEqual([v2.buildId, v1.buildId]);
    const status = await cairn(['deploy', 'status', '--deployment-name', deploymentName]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`Deployment "${deploymentName}": current build "${v2.buildId}".`);
    expect(status.stdout).toMatch(
      new RegExp(
        `${v1.buildId.replace(/[.@]/g, '\\$&')} +drain(ing|ed) +0 open runs \\(0 pinned\\)  no pinned run open: its workers can stop`,
      ),
    );
  });

  // Runs after the rollout above: v2 is the queue's current build.
  it('with v2 current and its workers stopped, cairn run says only a v2 worker takes a new run; set-current --unversioned sends it to the unversioned worker', async () => {
    await Promise.all(builds.splice(0).map((build) => build.stop()));
    const current = (await describeDeployment(client, deploymentName))!.current!;
    const scripted = new ScriptedModel('back', [scriptStep.text('Answered by the unversioned worker.')]);
    // An unversioned worker (as `cairn dev` runs) on the same queue: it does not get the run while v2 is current.
    const worker = await createCairnWorker({
      connection,
      client,
      taskQueue,
      agents: rolloutAgents('v1'),
      resolveModel: (spec) => resolveModel(spec, { scripts: { [`back-${id}`]: scripted } }),
      workflowBundle: bundles.v1,
    });
    await worker.runUntil(async () => {
      const workflowId = `back-${id}`;
      const started = await cairn([
        'run',
        'rollout_auto',
        'Hello.',
        '--id',
        workflowId,
        '--task-queue',
        taskQueue,
        '--model',
        `scripted:back-${id}`,
      ]);
      expect(started.code, started.stderr).toBe(0);
      expect(started.stderr).toContain(
        `cairn run: no worker has picked up ${workflowId} yet; task queue "${taskQueue}" sends new runs to build "${current}" of Worker Deployment "${deploymentName}" (its current build)`,
      );
      expect(started.stderr).toContain(`cairn worker --deployment-name ${deploymentName} --build-id ${current}`);
      expect(started.stderr).toContain(`cairn deploy set-current --deployment-name ${deploymentName} --unversioned`);
      expect(started.stderr).not.toContain('it starts once a worker polls');

      const back = await cairn(['deploy', 'set-current', '--deployment-name', deploymentName, '--unversioned']);
      expect(back.code, back.stderr).toBe(0);
      expect(back.stdout).toContain(`Deployment "${deploymentName}" has no current build (it was "${current}")`);
      expect(await client.workflow.getHandle(workflowId).result()).toMatchObject({
        answer: 'Answered by the unversioned worker.',
      });
    });
  });
});
