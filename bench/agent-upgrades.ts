/**
 * Issue 54's trial: agent versions moving at safe points, from outside, on a real server.
 * `runs` runs of an agent that chooses `auto-upgrade` (half wait on a review, half have a tool call
 * in flight) and `runs` of a `pinned` agent, all on build v1 of test/fixtures/upgrade-agents.ts;
 * then v2 (another prompt, `issue_credit` needs a reason) is made current and the runs are told,
 * as `cairn deploy set-current` does. It counts what moved and when: the waiting runs move at once
 * (continue-as-new onto v2, still waiting), the working ones only at their next wait, none with a
 * call in flight; the waiting ones finish on v2. Then v1 is made current again (a roll back) and the
 * rest move back and finish on v1. Pinned runs finish on v1 throughout. Every workflow task of
 * every chain is checked: none failed (no nondeterminism).
 *
 *   npx tsx bench/agent-upgrades.ts [runs=20] [--postgres]
 *
 * `--postgres`: Temporal server 1.29.1 on the local PostgreSQL (bench/cluster-server.ts; the first
 * time it builds the server with Go), else the embedded dev server. Not part of `npm run bench`.
 */
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { resolveModel } from '../activities/model/index.js';
import type { AgentRunHandle } from '../client/agent-run-handle.js';
import { CairnClient } from '../client/cairn-client.js';
import { describeDeployment, setCurrentBuild } from '../runtime/deployments.js';
import { startEmbeddedServer } from '../runtime/embedded-server.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { upgradeRuns } from '../runtime/run-upgrades.js';
import { createCairnWorker } from '../runtime/worker.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { agentVersion } from '../shared/agent/agent-version.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep, type Script } from '../testing/script-steps.js';
import { releaseStock, upgradeAgents, type UpgradeBuild } from '../test/fixtures/upgrade-agents.js';
import { startClusterServer } from './cluster-server.js';

const args = process.argv.slice(2);
const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 20);
const half = Math.floor(runs / 2);
const postgres = args.includes('--postgres');
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');

Runtime.install({ logger: new DefaultLogger('WARN') });
const server = postgres
  ? await startClusterServer((line) => console.log(line))
  : await startEmbeddedServer({ log: () => undefined });
const client = new Client({ connection: await Connection.connect({ address: server.address }) });
const connection = await NativeConnection.connect({ address: server.address });
const deploymentName = `trial-${randomUUID().slice(0, 8)}`;
const taskQueue = `trial-${randomUUID().slice(0, 8)}`;
const bundles = Object.fromEntries(
  await Promise.all(
    (['v1', 'v2'] as const).map(async (build) => [
      build,
      { code: (await bundleWorkflows(join(PACKAGE_ROOT, `test/fixtures/upgrade-${build}-workflows.ts`))).code },
    ]),
  ),
) as Record<UpgradeBuild, { code: string }>;

const names = (kind: string) => Array.from({ length: kind === 'pinned' ? runs : half }, (_, i) => `${kind}-${i}`);
const scripts: Record<UpgradeBuild, Record<string, Script>> = {
  v1: Object.fromEntries([
    ...names('waiting').map((n) => [n, [scriptStep.call('issue_credit', { orderId: n })]]),
    ...names('working').map((n) => [
      n,
      [
        scriptStep.call('wait_for_stock', { orderId: n }),
        scriptStep.call('issue_credit', { orderId: n }),
        scriptStep.text(`${n} answered by v1 after the roll back.`),
      ],
    ]),
    ...names('pinned').map((n) => [
      n,
      [scriptStep.call('issue_credit', { orderId: n }), scriptStep.text(`${n} by v1.`)],
    ]),
  ]),
  v2: Object.fromEntries(names('waiting').map((n) => [n, [scriptStep.text(`${n} answered by v2.`)]])),
};
const workers: { worker: Worker; running: Promise<void> }[] = [];

async function startBuild(build: UpgradeBuild): Promise<string> {
  const models = Object.fromEntries(Object.entries(scripts[build]).map(([n, s]) => [n, new ScriptedModel(n, s)]));
  const worker = await createCairnWorker({
    connection,
    client,
    taskQueue,
    agents: upgradeAgents(build),
    resolveModel: (spec) => resolveModel(spec, { scripts: models }),
    workflowBundle: bundles[build],
    versioning: { deploymentName },
  });
  workers.push({ worker, running: worker.run() });
  const buildId = worker.options.workerDeploymentOptions!.version.buildId;
  await until(`build ${build} registered`, async () =>
    ((await describeDeployment(client, deploymentName))?.builds ?? []).some((b) => b.buildId === buildId),
  );
  return buildId;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Makes `buildId` current (the server refuses until its workers registered the queue), then tells the runs. */
async function promote(buildId: string): Promise<{ told: number; at: number }> {
  await until('promoted', () => setCurrentBuild(client, { deploymentName, buildId }).then(() => true));
  const at = Date.now();
  const { signalled, failed } = await upgradeRuns(client, { deploymentName, buildId });
  if (failed.length > 0) throw new Error(`not told: ${JSON.stringify(failed)}`);
  return { told: signalled.length, at };
}

const waitingOn = (run: AgentRunHandle, generation: number) =>
  until(`${run.workflowId} waiting in generation ${generation}`, async () => {
    const state = await run.state();
    return state.phase === 'awaiting_review' && state.generation === generation;
  });
const seconds = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) =>
    ((sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0) / 1000).toFixed(2);
  return `p50 ${at(0.5)} s, p90 ${at(0.9)} s`;
};

console.log(
  `${postgres ? 'Temporal 1.29.1 on PostgreSQL' : 'embedded dev server'}; ${runs} auto-upgrade + ${runs} pinned runs; load ${load()}`,
);
const [v1, v2] = [await startBuild('v1'), await startBuild('v2')];
await promote(v1);
const cairn = new CairnClient({ client, taskQueue });
const start = (agent: string, n: string) => cairn.start({ agent, prompt: `Credit ${n}.`, model: `scripted:${n}` });
const waiting = await Promise.all(names('waiting').map((n) => start('upgrade_auto', n)));
const working = await Promise.all(names('working').map((n) => start('upgrade_auto', n)));
const pinned = await Promise.all(names('pinned').map((n) => start('upgrade_pinned', n)));
await Promise.all([...waiting, ...pinned].map((run) => waitingOn(run, 0)));
const { stockHeld } = await import('../test/fixtures/upgrade-agents.js');
await until('every wait_for_stock call in flight', async () => names('working').every(stockHeld));
const visible = `TemporalWorkerDeploymentVersion = "${deploymentName}:${v1}" AND ExecutionStatus = "Running"`;
await until('all runs visible on v1', async () => (await client.workflow.count(visible)).count === runs * 2);
await until('the waits in visibility', async () => {
  let published = 0;
  for await (const run of client.workflow.list({ query: visible }))
    if ((run.memo?.cairnRun as { phase?: string } | undefined)?.phase === 'awaiting_review') published++;
  return published === runs + half;
});

// v2 current: the waiting runs move at once; the working ones keep their call and move at their next wait.
const toV2 = await promote(v2);
const moved = await Promise.all(waiting.map(async (run) => (await waitingOn(run, 1), Date.now() - toV2.at)));
const stillWorking = (await Promise.all(working.map(async (run) => (await run.state()).generation))).filter(
  (g) => g === 0,
);
for (const n of names('working')) releaseStock(n);
const movedAtWait = await Promise.all(working.map(async (run) => (await waitingOn(run, 1), Date.now() - toV2.at)));
const v2Version = agentVersion(upgradeAgents('v2')[0]!);
const onV2 = (await Promise.all([...waiting, ...working].map((r) => r.state()))).filter(
  (s) => s.agentVersion === v2Version,
);
// The waiting ones finish on v2 (their held call edited to fit v2's schema).
for (const run of waiting) {
  const [review] = (await run.state()).reviews;
  await run.review(review!, {
    type: 'edit',
    args: { orderId: (review!.args as { orderId: string }).orderId, reason: 'trial' },
  });
}
const v2Answers = (await Promise.all(waiting.map((run) => run.result()))).filter((r) =>
  /answered by v2/.test(r.answer),
);

// Roll back: v1 current again; the working runs (waiting on v2) move back.
const toV1 = await promote(v1);
const movedBack = await Promise.all(working.map(async (run) => (await waitingOn(run, 2), Date.now() - toV1.at)));
for (const run of [...working, ...pinned]) await run.review((await run.state()).reviews[0]!, { type: 'accept' });
const v1Answers = (await Promise.all(working.map((run) => run.result()))).filter((r) =>
  /by v1 after the roll back/.test(r.answer),
);
const pinnedAnswers = (await Promise.all(pinned.map((run) => run.result()))).filter(
  (r) => /by v1\./.test(r.answer) && r.generation === 0,
);

// Every workflow task of every chain: none failed.
let tasks = 0;
let failedTasks = 0;
for (const run of [...waiting, ...working, ...pinned])
  for await (const execution of client.workflow.list({ query: `WorkflowId = "${run.workflowId}"` })) {
    const events = (await client.workflow.getHandle(run.workflowId, execution.runId).fetchHistory()).events ?? [];
    tasks += events.filter((e) => e.workflowTaskCompletedEventAttributes).length;
    failedTasks += events.filter((e) => e.workflowTaskFailedEventAttributes).length;
  }

console.log(`told when v2 became current: ${toV2.told} (${runs} auto-upgrade runs; 0 pinned)`);
console.log(`waiting runs moved to v2 while waiting: ${moved.length}/${half}, ${seconds(moved)} after the tell`);
console.log(
  `working runs still on v1 with a call in flight: ${stillWorking.length}/${half}; moved at their next wait: ${movedAtWait.length}/${half}`,
);
console.log(`runs showing v2's agent version after the move: ${onV2.length}/${half * 2}`);
console.log(`waiting runs answered by v2: ${v2Answers.length}/${half}`);
console.log(
  `told at the roll back: ${toV1.told}; moved back to v1 while waiting: ${movedBack.length}/${half}, ${seconds(movedBack)}`,
);
console.log(`working runs answered by v1 after the roll back: ${v1Answers.length}/${half}`);
console.log(`pinned runs answered by v1, never moved: ${pinnedAnswers.length}/${runs}`);
console.log(`workflow tasks completed: ${tasks}; failed (nondeterminism or other): ${failedTasks}; load ${load()}`);

for (const { worker } of workers) worker.shutdown();
await Promise.all(workers.map(({ running }) => running));
await connection.close();
await server.close();
process.exit(failedTasks === 0 ? 0 : 1);
