/**
 * The toolbox of an agent's real tools: what the planner learns of each model call — its
 * identity, its side effects, whether a person must review it and how — and a refusal for a call
 * that must not run.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../shared/tools/define-tool.js';
import { callKey } from '../shared/identity/call-key.js';
import { argsHash } from '../shared/identity/hash.js';
import { failureCode } from '../shared/tools/tool-result.js';
import { checkedCall, toolboxOf } from './toolbox.js';
import { rawCall } from './testing.js';

const refund = () =>
  defineTool({
    name: 'refund',
    description: 'Refund an order.',
    input: z.object({ order_id: z.string(), amount: z.number() }),
    sideEffects: 'once',
    approval: (args) => args.amount > 100,
    review: { allow: ['accept', 'reject'], description: 'Check the amount.' },
    execute: () => ({ refunded: true }),
  });
const lookup = () =>
  defineTool({
    name: 'lookup',
    description: 'Look an order up.',
    input: z.object({ id: z.string() }),
    sideEffects: 'idempotent',
    execute: () => ({}),
  });
const box = () => toolboxOf([refund(), lookup()]);

describe('toolboxOf', () => {
  it("carries the tool's side effects and identifies the call by tool and arguments", () => {
    const args = { order_id: 'A-1', amount: 20 };
    const checked = box().check(rawCall('refund', args), '3.1');
    expect(checked).toEqual({
      call: { toolCallId: '3.1', name: 'refund', args },
      argsHash: argsHash(args),
      key: callKey('refund', argsHash(args)),
      sideEffects: 'once',
      needsApproval: false,
    });
    expect(box().check(rawCall('lookup', { id: 'A-1' }), '3.2')).toMatchObject({
      sideEffects: 'idempotent',
      needsApproval: false,
    });
  });

  it("a call the approval rule holds needs review, with the tool's review config", () => {
    const checked = box().check(rawCall('refund', { order_id: 'A-1', amount: 500 }), '3.1');
    expect(checked.needsApproval).toBe(true);
    expect(checked.review).toEqual({ allow: ['accept', 'reject'], description: 'Check the amount.' });
    expect(checked.failure).toBeUndefined();
  });

  it('a call with bad arguments or of an unknown tool fails before running: no side effects, no review', () => {
    for (const raw of [rawCall('refund', { order_id: 'A-1', amount: 'lots' }), rawCall('pay', {})]) {
      const checked = box().check(raw, '4.1');
      expect(checked).toMatchObject({
        sideEffects: 'none',
        needsApproval: false,
        call: { toolCallId: '4.1', name: raw.name },
      });
      expect(checked.review).toBeUndefined();
      expect(failureCode(checked.failure!)).toBe(raw.name === 'pay' ? 'unknown_tool' : 'invalid_arguments');
      expect(checked.key).toBe(callKey(raw.name, checked.argsHash));
    }
  });

  it('a call that needs no review carries no review config, even when the tool has one', () => {
    expect(box().check(rawCall('refund', { order_id: 'A-1', amount: 5 }), '1')).not.toHaveProperty('review');
  });

  it('a once call of a tool that can reconcile is reconciled before a person is asked; other calls are not', () => {
    const pay = defineTool({
      name: 'pay',
      description: 'Pay an invoice.',
      input: z.object({ invoice: z.string() }),
      sideEffects: 'once',
      reconcile: () => ({ unknown: 'no ledger' }),
      execute: () => ({ paid: true }),
    });
    const withPay = toolboxOf([pay, refund()]);
    expect(withPay.check(rawCall('pay', { invoice: 'I-1' }), '1.1').reconcile).toBe(true);
    expect(withPay.check(rawCall('refund', { order_id: 'A-1', amount: 5 }), '1.2')).not.toHaveProperty('reconcile');
    const call = { toolCallId: '1.3', name: 'lookup', args: {} };
    expect(
      checkedCall(call, argsHash({}), { sideEffects: 'idempotent', needsApproval: false, reconcile: true }),
    ).not.toHaveProperty('reconcile');
  });
});
