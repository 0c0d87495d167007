/** The deduping refund tool of examples/refunds with the workflow's once keys, run by the real tool activity. */
import { describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createToolActivities } from '../activities/tool-activity.js';
import { createReconcileActivities } from '../activities/reconcile-activity.js';
import { issueOnceKeys, settleOnceKeys } from '../shared/identity/once-key.js';
import { argsHash } from '../shared/identity/hash.js';
import { errorResult, type ToolResult } from '../shared/tools/tool-result.js';
import { toolError } from '../shared/failures/tool-error.js';
import type { RunToolInput } from '../shared/tools/run-tool-input.js';
import { RefundLedger, issueRefund, type Payments } from '../examples/refunds/refund-ledger.js';

function payments(): Payments & { paid: string[] } {
  const paid: string[] = [];
  const byKey = new Map<string, { orderId: string; amount: number; reference: string }>();
  return {
    paid,
    refund: async (orderId, amount, key) => {
      await new Promise((r) => setTimeout(r, 5));
      paid.push(`${orderId}:${amount}`);
      const refund = { orderId, amount, reference: `RF-${paid.length}` };
      byKey.set(key, refund);
      return refund;
    },
    findRefund: async (key) => byKey.get(key),
  };
}
const env = new MockActivityEnvironment(
  { workflowExecution: { workflowId: 'wf-9', runId: 'r' } },
  { logger: new DefaultLogger('ERROR') },
);

describe('a refund tool that dedupes by idempotency key', () => {
  it('pays once per key, answers a repeat with the earlier refund, and pays a new key again', async () => {
    const bank = payments();
    const { runTool } = createToolActivities([issueRefund], { refunds: new RefundLedger(bank) });
    const run = (key: string): Promise<ToolResult> =>
      env.run(runTool, {
        name: 'issue_refund',
        toolCallId: '1.1',
        args: { orderId: 'A-1', amount: 20 },
        idempotencyKey: key,
      } satisfies RunToolInput);
    expect(await run('wf-9/issue_refund#h/1')).toMatchObject({
      status: 'ok',
      result: { reference: 'RF-1', replayed: false },
    });
    expect(await run('wf-9/issue_refund#h/1')).toMatchObject({
      status: 'ok',
      result: { reference: 'RF-1', replayed: true },
    });
    expect(await run('wf-9/issue_refund#h/2')).toMatchObject({
      status: 'ok',
      result: { reference: 'RF-2', replayed: false },
    });
    expect(bank.paid).toEqual(['A-1:20', 'A-1:20']);
  });

  it('shares a refund in flight instead of paying twice', async () => {
    const bank = payments();
    const ledger = new RefundLedger(bank);
    const [a, b] = await Promise.all([ledger.refundOnce('k', 'A-2', 5), ledger.refundOnce('k', 'A-2', 5)]);
    expect(bank.paid).toEqual(['A-2:5']);
    expect([a.reference, b.reference]).toEqual(['RF-1', 'RF-1']);
  });

  it('frees the key when the payment failed: nothing was paid', async () => {
    let fail = true;
    const ledger = new RefundLedger({
      refund: async () => (fail ? Promise.reject(new Error('card declined')) : { reference: 'RF-9' }),
      findRefund: async () => undefined,
    });
    await expect(ledger.refundOnce('k', 'A-3', 5)).rejects.toThrow('card declined');
    fail = false;
    expect(await ledger.refundOnce('k', 'A-3', 5)).toMatchObject({ reference: 'RF-9', replayed: false });
  });

  it("with the workflow's keys: a crash then a retry pays once; a deliberate repeat pays again", async () => {
    const bank = payments();
    const { runTool } = createToolActivities([issueRefund], { refunds: new RefundLedger(bank) });
    const args = { orderId: 'A-4', amount: 30 };
    const call = { name: 'issue_refund', argsHash: argsHash(args) };
    // 1st call: the refund is paid, but the worker "dies" before the result is recorded.
    let issued = issueOnceKeys({}, 'wf-9', [call]);
    await env.run(runTool, { name: 'issue_refund', toolCallId: '1.1', args, idempotencyKey: issued.keys[0] });
    let ledger = settleOnceKeys(issued.ledger, [
      {
        ...call,
        key: issued.keys[0]!,
        result: errorResult({ name: 'issue_refund', toolCallId: '1.1' }, toolError('outcome_unknown', 'worker died')),
      },
    ]);
    // The retry with the same arguments reuses the key: answered from the ledger, not paid again.
    issued = issueOnceKeys(ledger, 'wf-9', [call]);
    const retried: ToolResult = await env.run(runTool, {
      name: 'issue_refund',
      toolCallId: '2.1',
      args,
      idempotencyKey: issued.keys[0],
    });
    expect(retried).toMatchObject({ status: 'ok', result: { replayed: true } });
    ledger = settleOnceKeys(issued.ledger, [{ ...call, key: issued.keys[0]!, result: retried }]);
    // A second refund on purpose, after a known outcome: a new key, paid.
    issued = issueOnceKeys(ledger, 'wf-9', [call]);
    expect(
      await env.run(runTool, { name: 'issue_refund', toolCallId: '3.1', args, idempotencyKey: issued.keys[0] }),
    ).toMatchObject({ result: { replayed: false } });
    expect(bank.paid).toEqual(['A-4:30', 'A-4:30']);
  });

  it('reconciles a lost attempt with the provider: a paid key is the result, an unpaid key is not', async () => {
    const bank = payments();
    const refunds = new RefundLedger(bank);
    const { reconcileTool } = createReconcileActivities([issueRefund], { refunds });
    const args = { orderId: 'A-5', amount: 15 };
    // The worker that paid died before reporting; a new worker (a new ledger) asks the provider.
    await new RefundLedger(bank).refundOnce('wf-9/issue_refund#h/1', 'A-5', 15);
    const ask = (key: string) =>
      env.run(reconcileTool, { name: 'issue_refund', toolCallId: '1.1', args, idempotencyKey: key });
    expect(await ask('wf-9/issue_refund#h/1')).toMatchObject({
      toolCallId: '1.1',
      happened: true,
      result: { status: 'ok', result: { orderId: 'A-5', refunded: 15, reference: 'RF-1' } },
    });
    expect(await ask('wf-9/issue_refund#h/2')).toEqual({ toolCallId: '1.1', happened: false });
    expect(bank.paid).toEqual(['A-5:15']);
  });
});
