/**
 * A `PerRunScriptedModel` (what `cairn init`'s starter and `cairn dev` register) on a real dev
 * server: a run waiting for a review outlives its worker, and a new worker with a fresh instance of
 * the model (a restart, another machine, a new build) goes on at the right step of the script.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnWorker } from '../runtime/worker.js';
import { PerRunScriptedModel } from '../testing/per-run-scripted-model.js';
import { scriptStep } from '../testing/script-steps.js';
import { testAgent } from './fixtures/agents.js';
import { calls } from './fixtures/tools.js';
import { connectClient, serverAddress } from './support/temporal.js';

const script = [
  scriptStep.call('lookup_order', { orderId: 'A-1001' }),
  scriptStep.call('issue_refund', { orderId: 'A-1001', amount: 80 }),
  scriptStep.text('A-1001 is refunded: 80.'),
];

let connection: NativeConnection;
let runs: CairnClient;
const taskQueue = `scripted-workers-${randomUUID()}`;
beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Installed already in this process.
  }
  connection = await NativeConnection.connect({ address: serverAddress() });
  runs = new CairnClient({ client: await connectClient(), taskQueue });
});
afterAll(async () => {
  await connection?.close();
  await runs?.close();
});

/** A worker process's worth: its own model instance, as a new process would have. */
async function startWorker(): Promise<{ worker: Worker; running: Promise<void> }> {
  const worker = await createCairnWorker({
    connection,
    taskQueue,
    agents: [testAgent],
    models: { scripts: { support: new PerRunScriptedModel('support', script) } },
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  return { worker, running: worker.run() };
}

it('a run waiting for a review goes on, as scripted, on a new worker with a fresh scripted model', {
  timeout: 120_000,
}, async () => {
  const refunds = calls.issue_refund ?? 0;
  const first = await startWorker();
  const { run, state } = await runs.startUntilIdle({
    agent: 'test',
    prompt: 'Refund A-1001, it came late.',
    model: 'scripted:support',
    workflowId: `scripted-workers-${randomUUID()}`,
  });
  expect(state).toMatchObject({
    phase: 'awaiting_review',
    reviews: [{ name: 'issue_refund', args: { orderId: 'A-1001', amount: 80 } }],
  });
  first.worker.shutdown();
  await first.running;

  const second = await startWorker();
  try {
    await run.review(state.reviews[0]!, { type: 'accept' });
    expect(await run.result()).toMatchObject({ answer: 'A-1001 is refunded: 80.', outcome: { status: 'answered' } });
    expect(calls.issue_refund).toBe(refunds + 1);
  } finally {
    second.worker.shutdown();
    await second.running;
  }
});
