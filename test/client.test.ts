/**
 * `cairn-agents/client` and `cairn-agents/testing` against the real dev server: a run started,
 * asked, answered, reviewed and watched through CairnClient; what a refused input looks like; a
 * run that fails ends a watch; startTestEnvironment serves agents with their deps. The package's
 * own entry points are imported, as a user would.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CairnClient, NotPendingError, type StepLogEntry } from '../entry/client.js';
import { scriptStep, startTestEnvironment } from '../entry/testing.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { calls } from './fixtures/tools.js';
import { scribe, type Ledger } from './fixtures/scribe-agents.js';
import { serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
let runs: CairnClient;
beforeAll(async () => {
  w = await startTestWorker();
  runs = new CairnClient({ client: w.client, taskQueue: w.taskQueue });
});
afterAll(() => w?.stop());

/** A redelivery that needs the customer's window, then a refund over the review threshold. */
const redeliverAndRefund = () => [
  scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
  scriptStep.react(({ messages }) => {
    const said = String(messages.findLast((m) => m.role === 'user')?.content);
    return scriptStep.calls([
      {
        name: 'schedule_redelivery',
        arguments: { orderId: 'A-1', window: said.includes('afternoon') ? 'afternoon' : 'morning' },
      },
      { name: 'issue_refund', arguments: { orderId: 'A-1', amount: 60 } },
    ]);
  }),
  scriptStep.text('Redelivery in the afternoon; 60 refunded.'),
];

describe('CairnClient', () => {
  it('starts a run and stops at its question (update-with-start), answers it, decides its review, and gets the result', async () => {
    const refunds = calls.issue_refund ?? 0;
    const { model } = w.script(redeliverAndRefund());
    const { run, state } = await runs.startUntilIdle({
      agent: 'test',
      prompt: 'Redeliver A-1 and refund it.',
      model,
      workflowId: `client-${randomUUID()}`,
    });
    expect(run.firstExecutionRunId).toMatch(/^[0-9a-f-]{36}$/);
    expect(state).toMatchObject({
      phase: 'awaiting_clarification',
      clarification: { question: 'Which delivery window suits you: morning or afternoon?' },
    });
    await expect(run.review('1.1', { type: 'accept' })).rejects.toSatisfy(NotPendingError.isInstance);

    expect(await run.answer('the afternoon, please')).toEqual({ questionId: state.clarification!.id });
    const held = await run.untilIdle();
    expect(held).toMatchObject({
      phase: 'awaiting_review',
      reviews: [{ name: 'issue_refund', args: { orderId: 'A-1', amount: 60 } }],
    });
    await expect(run.answer('again')).rejects.toThrow(
      `Run "${run.workflowId}" has no pending question (phase awaiting_review).`,
    );
    expect(calls.issue_refund ?? 0).toBe(refunds);

    await run.review(held.reviews[0]!, { type: 'accept' });
    expect(await run.result()).toMatchObject({ answer: 'Redelivery in the afternoon; 60 refunded.', toolCalls: 3 });
    expect(calls.issue_refund).toBe(refunds + 1);
    // A finished run is idle for good: untilIdle answers from the state Query.
    expect(await run.untilIdle()).toMatchObject({ phase: 'done', answer: 'Redelivery in the afternoon; 60 refunded.' });
  });

  it('watches a run: its steps in order, once each, until it finishes', async () => {
    const { model } = w.script([
      scriptStep.call('lookup_order', { orderId: 'A-7' }),
      scriptStep.text('A-7 has shipped.'),
    ]);
    const run = await runs.start({ agent: 'test', prompt: 'Where is A-7?', model });
    expect(run.workflowId).toMatch(/^cairn-test-[0-9a-f]{8}$/);
    const steps: StepLogEntry[] = [];
    for await (const step of run.steps({ intervalMs: 50 })) steps.push(step);
    expect(steps.map((s) => s.action)).toEqual(['model', 'run_tools', 'model', 'finish']);
    expect(steps.map((s) => s.seq)).toEqual([1, 2, 3, 4]);
    // The whole transcript, also through the `transcript` Query with no argument at all.
    const transcript = await run.transcript();
    expect(transcript.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(await run.workflow.query('transcript')).toEqual(transcript);
  });

  it('pauses, resumes and cancels a run', async () => {
    const { model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-2' }),
      scriptStep.text('Cancelled as asked.'),
    ]);
    const { run } = await runs.startUntilIdle({ agent: 'test', prompt: 'Redeliver A-2.', model });
    await run.pause();
    expect(await run.untilIdle()).toMatchObject({ paused: true });
    await run.resume();
    await run.cancel('the customer changed their mind');
    expect(await run.result()).toMatchObject({
      answer: 'Cancelled as asked.',
      reason: expect.stringContaining('the customer changed their mind'),
    });
  });

  it('refuses bad human input as a non-retryable HumanInputError, and writes nothing', async () => {
    const { model } = w.script(redeliverAndRefund());
    const { run } = await runs.startUntilIdle({ agent: 'test', prompt: 'Redeliver A-1.', model });
    const refused = await run.answer('   ').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      name: 'WorkflowUpdateFailedError',
      cause: { type: 'HumanInputError', nonRetryable: true, message: 'The answer is empty.' },
    });
    await run.cancel();
    await run.result();
  });

  it('ends a watch with the failure of a run that ended badly', async () => {
    // Held for review, then terminated by an operator while watched.
    const { model } = w.script([scriptStep.call('issue_refund', { orderId: 'A-3', amount: 99 })]);
    const run = await runs.start({ agent: 'test', prompt: 'Refund A-3.', model });
    const seen: string[] = [];
    const watched = (async () => {
      for await (const step of run.steps({ intervalMs: 50 })) seen.push(step.action);
    })();
    await run.untilIdle();
    await w.client.workflow.getHandle(run.workflowId).terminate('stopped by an operator');
    await expect(watched).rejects.toMatchObject({ name: 'WorkflowFailedError', cause: { name: 'TerminatedFailure' } });
    expect(seen).toContain('review');
  });

  it('refuses a run whose model is named nowhere, and an unknown agent, in their first workflow task', async () => {
    await expect((await runs.start({ agent: 'test', prompt: 'hello' })).result()).rejects.toMatchObject({
      cause: { type: 'no_model', message: expect.stringContaining('No model for agent "test"') },
    });
    await expect(runs.startUntilIdle({ agent: 'nobody', prompt: 'hello', model: 'scripted:none' })).rejects.toThrow();
  });

  it('docs/run-api.md shows the shapes a client sends', () => {
    const docs = readFileSync(join(PACKAGE_ROOT, 'docs', 'run-api.md'), 'utf8');
    for (const shape of [
      '{"type":"accept"}',
      '{"type":"edit","args":',
      '{"type":"respond","content":',
      '{"type":"reject","reason":',
      '{"id":"q1","answer":',
    ])
      expect(docs).toContain(shape);
  });
});

describe('startTestEnvironment', () => {
  it('bundles your workflows file and serves its agents with your deps', async () => {
    const ledger: Ledger = { entries: [] };
    // The shared test server (`address`) keeps this quick; by default it starts a server of its own.
    const env = await startTestEnvironment({
      agents: [scribe],
      deps: ledger,
      address: serverAddress(),
      workflowsPath: join(PACKAGE_ROOT, 'test', 'fixtures', 'scribe-agents.ts'),
    });
    try {
      const { model, scripted } = env.script([
        scriptStep.call('write_note', { text: 'hello' }),
        scriptStep.text('Noted.'),
      ]);
      const run = await env.client.start({ agent: 'scribe', prompt: 'Note hello.', model });
      expect(await run.result()).toMatchObject({ answer: 'Noted.', toolCalls: 1 });
      expect(ledger.entries).toEqual(['hello']);
      expect(scripted.requests).toHaveLength(2);
      // A busy CI machine's activations stay within the sandbox's limit: 60 s, not the SDK's 5 s.
      expect(env.worker.options.isolateExecutionTimeoutMs).toBe(60_000);
    } finally {
      await env.close();
    }
  });
});
