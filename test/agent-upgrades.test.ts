/**
 * An agent's `auto-upgrade` runs move to a newer build only at a safe point, on the real dev server
 * (server 1.29: no Upgrade-on-Continue-as-New, so the `upgrade` Signal tells them). Two builds of the
 * upgrade agents (test/fixtures/upgrade-agents.ts) in one deployment: v2 changes the prompt and one
 * tool's schema. With v2 current: a run waiting on a review moves at once, still waiting (continue-as-new
 * onto v2; its history shows v2's agent version); a run with a call in flight finishes that call and
 * its next model turn on v1, and moves when it next waits on a person; a pinned run stays on v1 and
 * ignores the Signal. Nothing replays on code it did not start on: no workflow task fails.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { CairnClient } from '../client/cairn-client.js';
import type { AgentRunHandle } from '../client/agent-run-handle.js';
import { agentVersion } from '../shared/agent/agent-version.js';
import { setCurrentBuild } from '../runtime/deployments.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { upgradeRuns } from '../runtime/run-upgrades.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { scriptStep, type Script } from '../testing/script-steps.js';
import { upgradeSignal } from '../workflows/contract/index.js';
import { releaseStock, stockHeld, upgradeAgents, type UpgradeBuild } from './fixtures/upgrade-agents.js';
import { connectClient, serverAddress } from './support/temporal.js';
import { events, waitFor } from './support/runs.js';
import { startVersionedBuild, type VersionedBuild } from './support/versioned-build.js';

const PINNED = 1; // temporal.api.enums.v1.VersioningBehavior

/** The run's current execution as the server records it: behavior, build, and its agent version attribute. */
async function placeOf(handle: WorkflowHandle) {
  const described = await handle.describe();
  const info = described.raw.workflowExecutionInfo?.versioningInfo;
  return {
    behavior: info?.behavior,
    buildId: info?.deploymentVersion?.buildId,
    agentVersion: described.searchAttributes.CairnAgentVersion?.[0],
  };
}

describe('auto-upgrade runs move to a newer build at a safe point', { timeout: 240_000 }, () => {
  const deploymentName = `upgrade-${randomUUID().slice(0, 8)}`;
  const taskQueue = `upgrade-${randomUUID()}`;
  const id = randomUUID().slice(0, 8);
  let client: Client;
  let connection: NativeConnection;
  let bundles: Record<UpgradeBuild, { code: string }>;
  const builds: VersionedBuild[] = [];

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    const [v1, v2] = await Promise.all(
      (['v1', 'v2'] as const).map((build) =>
        bundleWorkflows(join(PACKAGE_ROOT, `test/fixtures/upgrade-${build}-workflows.ts`)),
      ),
    );
    bundles = { v1: { code: v1!.code }, v2: { code: v2!.code } };
    client = await connectClient();
    connection = await NativeConnection.connect({ address: serverAddress() });
  });

  afterAll(async () => {
    await Promise.all(builds.map((build) => build.stop()));
    await connection?.close();
    await client?.connection.close();
  });

  async function startBuild(build: UpgradeBuild, scripts: Record<string, Script>): Promise<VersionedBuild> {
    const started = await startVersionedBuild({
      name: build,
      connection,
      client,
      taskQueue,
      deploymentName,
      agents: upgradeAgents(build),
      bundle: bundles[build],
      scripts,
    });
    builds.push(started);
    return started;
  }

  const awaitingReview = (run: AgentRunHandle, generation: number) =>
    waitFor(async () => {
      const state = await run.state();
      return state.phase === 'awaiting_review' && state.generation === generation ? state : undefined;
    }, `${run.workflowId} awaiting review in generation ${generation}`);

  it('moves a waiting run at once and a working one at its next wait; a pinned run stays', async () => {
    const model = (run: string) => `scripted:${run}-${id}`;
    const v1 = await startBuild('v1', {
      [`waiting-${id}`]: [scriptStep.call('issue_credit', { orderId: 'A-1' })],
      [`working-${id}`]: [
        scriptStep.call('wait_for_stock', { orderId: 'A-2' }),
        scriptStep.call('issue_credit', { orderId: 'A-2' }),
      ],
      [`pinned-${id}`]: [
        scriptStep.call('issue_credit', { orderId: 'A-3' }),
        scriptStep.text('Pinned run answered by v1.'),
      ],
    });
    await setCurrentBuild(client, { deploymentName, buildId: v1.buildId });
    const cairn = new CairnClient({ client, taskQueue });
    const waiting = await cairn.start({ agent: 'upgrade_auto', prompt: 'Credit A-1.', model: model('waiting') });
    const working = await cairn.start({ agent: 'upgrade_auto', prompt: 'Credit A-2.', model: model('working') });
    const pinned = await cairn.start({ agent: 'upgrade_pinned', prompt: 'Credit A-3.', model: model('pinned') });
    const handle = (run: AgentRunHandle) => client.workflow.getHandle(run.workflowId);

    await awaitingReview(waiting, 0);
    await awaitingReview(pinned, 0);
    await waitFor(async () => stockHeld('A-2') || undefined, 'wait_for_stock holding A-2');
    const [v1Version, v2Version] = [agentVersion(upgradeAgents('v1')[0]!), agentVersion(upgradeAgents('v2')[0]!)];
    expect(v1Version).not.toBe(v2Version);
    // An auto-upgrade run is pinned in Temporal until it moves itself.
    expect(await placeOf(handle(waiting))).toEqual({ behavior: PINNED, buildId: v1.buildId, agentVersion: v1Version });
    expect((await waiting.state()).agentVersion).toBe(v1Version);

    const v2 = await startBuild('v2', {
      [`waiting-${id}`]: [scriptStep.text('Waiting run answered by v2.')],
      [`working-${id}`]: [scriptStep.text('Working run answered by v2.')],
      [`pinned-${id}`]: [], // never asked: an empty script fails loudly
    });
    // The server refuses until v2's workers registered the task queue, a little after the build.
    await waitFor(
      () =>
        setCurrentBuild(client, { deploymentName, buildId: v2.buildId }).then(
          () => true,
          (error: Error) => (/missing active task queues/.test(error.message) ? undefined : Promise.reject(error)),
        ),
      'v2 made current',
    );
    // The three runs are listed as pinned to v1 (visibility lags a little).
    await waitFor(
      async () =>
        (
          await client.workflow.count(
            `TemporalWorkerDeploymentVersion = "${deploymentName}:${v1.buildId}" AND ExecutionStatus = "Running" AND TemporalWorkflowVersioningBehavior = "Pinned"`,
          )
        ).count === 3 || undefined,
      'three runs pinned to v1 in visibility',
    );
    // Which runs upgrade is read from their summaries (`cairnRun.upgrades`): the pinned run's says it does not.
    await waitFor(async () => {
      for await (const run of client.workflow.list({ query: `WorkflowId = "${pinned.workflowId}"` }))
        if ((run.memo?.cairnRun as { phase?: string } | undefined)?.phase === 'awaiting_review') return true;
      return undefined;
    }, "the pinned run's summary in visibility");
    const told = await upgradeRuns(client, { deploymentName, buildId: v2.buildId });
    expect(told.failed).toEqual([]);
    expect([...told.signalled].sort()).toEqual([waiting.workflowId, working.workflowId].sort());
    // A pinned run that is told anyway ignores it.
    await handle(pinned).signal(upgradeSignal, { buildId: v2.buildId });

    // The waiting run moves at once, still waiting on its review: a new run of the chain on v2, with v2's agent.
    const moved = await awaitingReview(waiting, 1);
    expect(moved.agentVersion).toBe(v2Version);
    expect(moved.reviews.map((r) => r.name)).toEqual(['issue_credit']);
    await waitFor(
      async () => ((await placeOf(handle(waiting))).agentVersion === v2Version ? true : undefined),
      'the moved run lists v2 agent version',
    );
    expect(await placeOf(handle(waiting))).toEqual({ behavior: PINNED, buildId: v2.buildId, agentVersion: v2Version });
    // Whoever watches is told.
    const told1: string[] = [];
    for await (const event of waiting.events({ from: 0, types: ['hand_over', 'agent_changed'] })) {
      told1.push(JSON.stringify(event));
      if (told1.length === 2) break;
    }
    expect(told1).toEqual([
      expect.stringContaining(`"upgradeTo":"${v2.buildId}"`),
      expect.stringMatching(new RegExp(`"from":"${v1Version}","to":"${v2Version}","buildId":"${v2.buildId}"`)),
    ]);

    // The working run finishes its call and its next model turn on v1; it moves when it next waits.
    expect((await working.state()).generation).toBe(0);
    releaseStock('A-2');
    const workingMoved = await awaitingReview(working, 1);
    expect(workingMoved.agentVersion).toBe(v2Version);
    expect(v1.models[`working-${id}`]!.requests).toHaveLength(2);
    expect(JSON.stringify(v1.models[`working-${id}`]!.requests[1]!.messages.at(-1))).toContain('"build":"v1"');

    // Reviews decided on v2. v2's issue_credit needs a reason: a call held by v1 is checked again,
    // so accepting it as it is is refused, and an edit that fits v2 runs there.
    const refused = await waiting.review(moved.reviews[0]!, { type: 'accept' }).then(
      () => undefined,
      (error: Error & { cause?: Error }) => error,
    );
    expect(refused?.cause?.message).toMatch(
      /The agent changed since this issue_credit call was held, and its arguments no longer fit it: .*reason/,
    );
    for (const run of [waiting, working])
      await run.review((await run.state()).reviews[0]!, {
        type: 'edit',
        args: { orderId: run === waiting ? 'A-1' : 'A-2', reason: 'late delivery' },
      });
    await pinned.review((await pinned.state()).reviews[0]!, { type: 'accept' });
    expect(await waiting.result()).toMatchObject({ answer: 'Waiting run answered by v2.', generation: 1 });
    expect(await working.result()).toMatchObject({ answer: 'Working run answered by v2.', generation: 1 });
    expect(await pinned.result()).toMatchObject({ answer: 'Pinned run answered by v1.', generation: 0 });
    for (const run of ['waiting', 'working']) {
      const [request, ...more] = v2.models[`${run}-${id}`]!.requests;
      expect(more, run).toHaveLength(0);
      expect(request!.messages[0], run).toMatchObject({ content: 'Build v2: you help with orders.' });
      // The edited credit ran on v2 (the model is told of the edit after its result).
      expect(JSON.stringify(request!.messages.slice(-2)), run).toContain('"build":"v2"');
    }
    expect(v2.models[`pinned-${id}`]!.requests).toHaveLength(0);
    expect(await placeOf(handle(pinned))).toMatchObject({ behavior: PINNED, buildId: v1.buildId });

    // No workflow task failed anywhere in the chains: nothing replayed on code it did not start on.
    for (const run of [waiting, working, pinned]) {
      const chain = await client.workflow.list({ query: `WorkflowId = "${run.workflowId}"` });
      for await (const execution of chain) {
        const history = await events(client.workflow.getHandle(run.workflowId, execution.runId));
        expect(history.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
      }
    }
  });
});
