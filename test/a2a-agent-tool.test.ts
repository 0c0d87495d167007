/**
 * A Cairn agent calls another Cairn agent over A2A: two workers on two task queues, the inner
 * agent served by `createCairnA2AHandler`, the outer one calling it through an `a2aAgent` tool.
 * The inner agent's question reaches a person through the outer run (its pending clarification),
 * and the person's answer goes back to the same remote task, which completes; with
 * `onInputRequired: 'model'` the question comes back to the model as the tool's result instead.
 * An unknown remote task is a repairable failure of the tool.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnA2AHandler } from '../servers/a2a/cairn-a2a-handler.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { scriptStep, type ScriptContext } from '../testing/script-steps.js';
import { callerAgent } from './fixtures/a2a-agents.js';
import { calls } from './fixtures/tools.js';
import { serve, type Served } from './support/http.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let inner: TestWorker;
let outer: TestWorker;
let served: Served;
let innerModel = '';
let outerRuns: CairnClient;
let innerRuns: CairnClient;

beforeAll(async () => {
  inner = await startTestWorker();
  innerRuns = new CairnClient({ client: inner.client, taskQueue: inner.taskQueue });
  served = await serve(
    createCairnA2AHandler({
      client: innerRuns,
      agents: [(await import('./fixtures/agents.js')).testAgent],
      startOptions: () => ({ model: innerModel, temporal: { workflowExecutionTimeout: '2m' } }),
    }),
  );
  const code = (await bundleWorkflows(join(PACKAGE_ROOT, 'test/fixtures/a2a-workflows.ts'))).code;
  outer = await startTestWorker({ agents: [callerAgent(`${served.url}/test`)], workflowBundle: { code } });
  outerRuns = new CairnClient({ client: outer.client, taskQueue: outer.taskQueue });
}, 120_000);
afterAll(async () => {
  await served?.close();
  await outer?.stop();
  await inner?.stop();
});

/** The remote task id the model was shown (in a tool result or failure). */
function remoteTaskId(context: ScriptContext): string {
  // The newest one: an earlier call may have named a task that does not exist.
  const found = [...JSON.stringify(context.messages).matchAll(/cairn-a2a-test-[0-9a-f-]{36}/g)].at(-1);
  if (!found) throw new Error('no remote task id in the transcript');
  return found[0];
}

const innerScript = () =>
  inner.script([
    scriptStep.call('schedule_redelivery', { orderId: 'A-1001' }), // no window: a question
    scriptStep.call('schedule_redelivery', { orderId: 'A-1001', window: 'morning' }),
    scriptStep.text('Redelivery of A-1001 scheduled for the morning.'),
  ]);

describe('a2aAgent: a remote A2A agent as a tool', () => {
  it("the inner agent's question reaches a person through the outer run; the answer goes back to the remote task", async () => {
    ({ model: innerModel } = innerScript());
    const { model } = outer.script([
      scriptStep.call('remote_orders', { message: 'Redeliver A-1001.' }),
      scriptStep.react((context) =>
        scriptStep.call('remote_orders', { taskId: remoteTaskId(context), message: 'morning' }),
      ),
      scriptStep.text('The remote agent scheduled the redelivery.'),
    ]);
    const { run, state } = await outerRuns.startUntilIdle({
      agent: 'caller',
      prompt: 'A-1001 is late.',
      model,
      temporal: { workflowExecutionTimeout: '2m' },
    });
    expect(state.phase).toBe('awaiting_clarification');
    expect(state.clarification).toMatchObject({
      question: 'Which delivery window suits you: morning or afternoon?',
      tool: 'remote_orders',
    });

    await run.answer('morning');
    const result = await run.result();
    expect(result.answer).toBe('The remote agent scheduled the redelivery.');
    const transcript = JSON.stringify(await run.transcript());
    expect(transcript).toContain('Redelivery of A-1001 scheduled for the morning.');
    const taskId = /cairn-a2a-test-[0-9a-f-]{36}/.exec(transcript)![0];
    expect((await innerRuns.run(taskId).state()).phase).toBe('done');
  });

  it('a call the inner agent holds for review reaches a person through the outer run; the decision goes back bound to its arguments', async () => {
    ({ model: innerModel } = inner.script([
      scriptStep.call('issue_refund', { orderId: 'A-1002', amount: 80 }),
      scriptStep.text('Refunded 80 on A-1002.'),
    ]));
    const { model } = outer.script([
      scriptStep.call('remote_orders', { message: 'Refund 80 on A-1002.' }),
      scriptStep.react((context) => {
        // The failure's hint shows the model the reply to send: the held call and its args hash.
        const hint = /"exampleInput":(\{"taskId":"[^"]+","reply":\{[^}]*\}\})/.exec(JSON.stringify(context.messages));
        if (!hint) throw new Error('no exampleInput with a reply in the transcript');
        return scriptStep.call('remote_orders', JSON.parse(hint[1]!));
      }),
      scriptStep.text('The refund went through.'),
    ]);
    const refundsBefore = calls.issue_refund ?? 0;
    const { run, state } = await outerRuns.startUntilIdle({
      agent: 'caller',
      prompt: 'Refund A-1002.',
      model,
      temporal: { workflowExecutionTimeout: '2m' },
    });
    expect(state.clarification?.question).toMatch(
      /^remote_orders wants to run issue_refund with \{"orderId":"A-1002","amount":80\}\. Allow it/,
    );
    await run.answer('Yes, allow it.');
    expect((await run.result()).answer).toBe('The refund went through.');
    expect(JSON.stringify(await run.transcript())).toContain('Refunded 80 on A-1002.');
    expect(calls.issue_refund! - refundsBefore).toBe(1);
  });

  it("with onInputRequired 'model', the question is the tool's result and the model answers it; an unknown task is repaired", async () => {
    ({ model: innerModel } = innerScript());
    const { model } = outer.script([
      scriptStep.call('remote_orders_direct', {
        taskId: 'cairn-a2a-test-00000000-0000-0000-0000-000000000000',
        message: 'hello?',
      }),
      scriptStep.call('remote_orders_direct', { message: 'Redeliver A-1001.' }),
      scriptStep.react((context) =>
        scriptStep.call('remote_orders_direct', { taskId: remoteTaskId(context), message: 'morning' }),
      ),
      scriptStep.text('Done.'),
    ]);
    const { run, state } = await outerRuns.startUntilIdle({
      agent: 'caller',
      prompt: 'A-1001 is late.',
      model,
      temporal: { workflowExecutionTimeout: '2m' },
    });
    expect(state.phase).toBe('done');
    expect(state.lastErrors[0]).toMatchObject({ tool: 'remote_orders_direct', code: 'invalid_arguments' });
    const tools = (await run.transcript()).filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));
    expect(tools[1]).toContain('input_required');
    expect(tools[1]).toContain('Which delivery window suits you');
    expect(tools[2]).toContain('Redelivery of A-1001 scheduled for the morning.');
  });
});
