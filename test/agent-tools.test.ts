/**
 * Agents as tools on a real dev server: `ask_helper` runs the helper agent as a child workflow.
 * One scripted model serves parent and child in turn (the parent waits while its child runs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptStep } from '../testing/script-steps.js';
import { answerClarificationUpdate, cancelSignal, reviewToolCallUpdate } from '../workflows/contract/index.js';
import { calls } from './fixtures/tools.js';
import { recordHistory } from './support/histories.js';
import { awaiting } from './support/runs.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
beforeAll(async () => void (w = await startTestWorker()));
afterAll(() => w?.stop());

const toolMessage = (messages: readonly { role: string }[], name: string) =>
  messages.findLast((m) => m.role === 'tool' && (m as { name?: string }).name === name) as
    | { content: Record<string, any> }
    | undefined;

describe('an agent as a tool', () => {
  it("runs the other agent as a child workflow; its answer is the call's result", async () => {
    const { model, scripted } = w.script([
      scriptStep.call('ask_helper', { task: 'Where is order A-1001?' }),
      scriptStep.call('lookup_order', { orderId: 'A-1001' }), // the child's first turn
      scriptStep.text('A-1001 has shipped.'), // the child's answer
      scriptStep.text('The helper says A-1001 has shipped.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'Ask the helper about A-1001.', model });
    expect(await handle.result()).toMatchObject({ answer: 'The helper says A-1001 has shipped.' });
    expect(toolMessage(scripted.requests[3]!.messages, 'ask_helper')?.content).toEqual({
      answer: 'A-1001 has shipped.',
    });
    // The child sees its task as its prompt, and has its own history, linked to the parent.
    expect(scripted.requests[1]!.messages[1]).toEqual({ role: 'user', content: 'Where is order A-1001?' });
    const child = await w.client.workflow.getHandle(`${handle.workflowId}/1.1`).describe();
    expect(child.parentExecution).toMatchObject({ workflowId: handle.workflowId });
    expect(child.status.name).toBe('COMPLETED');
    await recordHistory(handle, 'agent-tool-parent');
    await recordHistory(w.client.workflow.getHandle(`${handle.workflowId}/1.1`), 'agent-tool-child');
  });

  it("surfaces a child's question in the parent, answered through the parent", async () => {
    const { model } = w.script([
      scriptStep.call('ask_helper', { task: 'Redeliver A-1.' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }), // child: no window → a question
      scriptStep.react(({ messages }) => {
        const said = messages.findLast((m) => m.role === 'user')!.content;
        return scriptStep.call('schedule_redelivery', {
          orderId: 'A-1',
          window: said.includes('afternoon') ? 'afternoon' : 'morning',
        });
      }),
      scriptStep.text('Redelivery scheduled.'),
      scriptStep.text('Done: redelivery scheduled.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'redeliver A-1', model });
    const state = await awaiting(handle, 'awaiting_clarification');
    expect(state.clarification).toMatchObject({
      id: '1.1/q1',
      question: 'Which delivery window suits you: morning or afternoon?',
      child: { toolCallId: '1.1', agent: 'helper', workflowId: `${handle.workflowId}/1.1` },
    });
    expect(state.children).toEqual([expect.objectContaining({ toolCallId: '1.1', agent: 'helper' })]);
    await expect(
      handle.executeUpdate(answerClarificationUpdate, { args: [{ id: '1.1/q9', answer: 'morning' }] }),
    ).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/Unknown clarification id/) },
    });
    await handle.executeUpdate(answerClarificationUpdate, {
      args: [{ id: state.clarification!.id, answer: 'afternoon' }],
    });
    expect(await handle.result()).toMatchObject({ answer: 'Done: redelivery scheduled.' });
    await recordHistory(handle, 'agent-tool-parent-forwards-answer');
    await recordHistory(w.client.workflow.getHandle(`${handle.workflowId}/1.1`), 'agent-tool-child-asks-parent');
  });

  it("surfaces a child's review in the parent, decided through the parent", async () => {
    const before = calls.issue_refund ?? 0;
    const { model } = w.script([
      scriptStep.call('ask_helper', { task: 'Refund 60 on A-7.' }),
      scriptStep.call('issue_refund', { orderId: 'A-7', amount: 60 }), // child: needs approval
      scriptStep.text('Refunded.'),
      scriptStep.text('The helper refunded A-7.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'refund A-7', model });
    const { reviews } = await awaiting(handle, 'awaiting_review');
    expect(reviews).toEqual([
      expect.objectContaining({
        toolCallId: '1.1/1.1',
        name: 'issue_refund',
        child: expect.objectContaining({ agent: 'helper' }),
      }),
    ]);
    await handle.executeUpdate(reviewToolCallUpdate, {
      args: [{ toolCallId: reviews[0]!.toolCallId, argsHash: reviews[0]!.argsHash, decision: { type: 'accept' } }],
    });
    expect(await handle.result()).toMatchObject({ answer: 'The helper refunded A-7.' });
    expect((calls.issue_refund ?? 0) - before).toBe(1);
  });

  it("brings a child that ended early back as partial data whose causes are the child's own errors", async () => {
    const bad = scriptStep.call('lookup_order', { orderId: 'nope' });
    const { model, scripted } = w.script([
      scriptStep.call('ask_helper', { task: 'Look up order nope.' }),
      bad,
      bad,
      bad, // the same invalid call three times: a loop, and the child must finish
      scriptStep.text('I could not look it up.'), // the child's forced final turn
      scriptStep.text('The helper could not find it.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'look up nope', model });
    await handle.result();
    const seen = toolMessage(scripted.requests.at(-1)!.messages, 'ask_helper')!.content;
    expect(seen.error).toMatchObject({
      code: 'partial_data',
      message: expect.stringMatching(/^helper stopped before finishing/),
    });
    expect(seen.error.causes.join(' ')).toMatch(/lookup_order 1\.1: The arguments for lookup_order are invalid/);
    expect(seen.partial).toEqual({ answer: 'I could not look it up.' });
  });

  it('reports a terminated child as cancelled, not as a tool that kept failing, and keeps the agent tool', async () => {
    const { model, scripted } = w.script([
      scriptStep.call('ask_helper', { task: 'Redeliver A-1.' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }), // child: no window → waits on a question
      scriptStep.text('The helper was stopped; I cannot redeliver A-1 now.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'Have the helper redeliver A-1.', model });
    await awaiting(handle, 'awaiting_clarification');
    await w.client.workflow.getHandle(`${handle.workflowId}/1.1`).terminate('stopped by an operator');
    expect((await handle.result()).answer).toBe('The helper was stopped; I cannot redeliver A-1 now.');
    const seen = toolMessage(scripted.requests[2]!.messages, 'ask_helper')?.content;
    expect(seen?.error).toMatchObject({
      code: 'cancelled',
      message: expect.stringMatching(/was terminated before it finished.*not retried/),
    });
    expect(JSON.stringify(seen)).not.toMatch(/kept failing|Temporal's retries/);
    // Not disabled: the model is still offered the agent tool.
    expect(scripted.requests[2]!.tools.map((t) => t.name)).toContain('ask_helper');
  });

  it('cancelling the parent cancels its child gracefully: both give a final answer', async () => {
    const { model } = w.script([
      scriptStep.call('ask_helper', { task: 'Redeliver A-1.' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
      scriptStep.text('Stopped before scheduling.'), // the child's final turn
      scriptStep.text('Cancelled; nothing was scheduled.'), // the parent's
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'redeliver A-1', model });
    await awaiting(handle, 'awaiting_clarification');
    await handle.signal(cancelSignal, 'the customer changed their mind');
    expect(await handle.result()).toMatchObject({
      answer: 'Cancelled; nothing was scheduled.',
      reason: 'the customer changed their mind',
    });
    const child = w.client.workflow.getHandle(`${handle.workflowId}/1.1`);
    expect(await child.result()).toMatchObject({
      answer: 'Stopped before scheduling.',
      reason: 'the customer changed their mind',
    });
  });

  it('loses nothing when the worker restarts while a child waits', async () => {
    const { model } = w.script([
      scriptStep.call('ask_helper', { task: 'Redeliver A-1.' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1', window: 'morning' }),
      scriptStep.text('Scheduled.'),
      scriptStep.text('Done.'),
    ]);
    const handle = await w.start({ agent: 'test', prompt: 'redeliver A-1', model });
    const state = await awaiting(handle, 'awaiting_clarification');
    await w.restart();
    await handle.executeUpdate(answerClarificationUpdate, {
      args: [{ id: state.clarification!.id, answer: 'morning' }],
    });
    expect(await handle.result()).toMatchObject({ answer: 'Done.' });
  });
});
