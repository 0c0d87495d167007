/**
 * The planner is replayed by Temporal and its state is carried through history and
 * continue-as-new: the same inputs must give the same plans, and every state must survive JSON.
 */
import { describe, expect, it } from 'vitest';
import { argsHash } from '../shared/identity/hash.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import {
  INTERRUPTED,
  NO_RESPONSE,
  drive,
  failed,
  modelError,
  ok,
  rawCall,
  textReply,
  toolCallsReply,
  type World,
} from './testing.js';

const has = (call: ToolCall, key: string) => typeof call.args === 'object' && call.args !== null && key in call.args;

/** A run that touches every rule: review + edit, back-off, repair, clarification, nudge, disable, block, partial data. */
const eventful = (): World => ({
  policy: { disableToolForTurns: 1, maxModelRetries: 3 },
  model: [
    toolCallsReply([
      rawCall('search_orders', { status: 'shipped' }),
      rawCall('refund', { order_id: 'A-17', amount: 120 }),
    ]),
    NO_RESPONSE,
    modelError('rate_limited', 1_500),
    toolCallsReply([rawCall('lookup', {})]),
    { status: 'ok', response: { text: '<think>which one?</think>', toolCalls: [], finishReason: 'stop' } },
    toolCallsReply([rawCall('search_orders', { page: 1 }), rawCall('lookup', { order_id: 'A-17' })]),
    INTERRUPTED,
    toolCallsReply([rawCall('search_orders', { status: 'placed' }), rawCall('search_orders', { page: 2 })]),
    toolCallsReply([rawCall('search_orders', { status: 'placed' })]),
    textReply('<think>done</think>Order A-17 was refunded 100.'),
  ],
  needsApproval: (c) => c.name === 'refund',
  sideEffects: { refund: 'once' },
  precheck: (c) =>
    c.name === 'lookup' && !has(c, 'order_id')
      ? failed(c, 'missing_fields', { missingFields: ['order_id'], clarifyingQuestion: 'Which order?' })
      : undefined,
  tool: (c, run): ToolResult => {
    if (c.name === 'search_orders' && has(c, 'status') && run === 1)
      return failed(c, (c.args as { status: string }).status === 'shipped' ? 'timeout' : 'output_not_json');
    if (c.name === 'search_orders' && has(c, 'page'))
      return (c.args as { page: number }).page === 1
        ? failed(c, 'partial_data', { nextInput: { page: 2 } }, ['A-1'])
        : ok(c, ['A-2']);
    if (c.name === 'lookup') return failed(c, 'tool_unavailable');
    return ok(c);
  },
  answer: () => 'A-17',
  review: (reviews) => {
    const args = { order_id: 'A-17', amount: 100 };
    return Object.fromEntries(reviews.map((r) => [r.toolCallId, { type: 'edit', args, argsHash: argsHash(args) }]));
  },
});

describe('determinism', () => {
  it('the scenario exercises what it claims to', () => {
    const trace = drive(eventful());
    const kinds = new Set(trace.plans.map((p) => p.step.type));
    expect([...kinds].sort()).toEqual([
      'await_clarification',
      'await_review',
      'back_off',
      'call_model',
      'execute_tools',
      'finish',
    ]);
    expect(trace.last.step).toEqual({ type: 'finish', answer: 'Order A-17 was refunded 100.', reason: null });
    expect(trace.records.map((r) => (r.status === 'error' ? r.error.code : 'ok'))).toEqual([
      'ok',
      'ok',
      'missing_fields',
      'partial_data',
      'tool_unavailable',
      'output_not_json',
      'ok',
      'loop_detected',
    ]);
  });

  it('the same inputs give deep-equal plans', () => {
    expect(drive(eventful())).toStrictEqual(drive(eventful()));
  });

  it('every state and step survives a JSON round trip unchanged', () => {
    for (const plan of drive(eventful()).plans) {
      expect(JSON.parse(JSON.stringify(plan.state))).toStrictEqual(plan.state);
      expect(JSON.parse(JSON.stringify(plan.step))).toStrictEqual(plan.step);
    }
  });

  it('a run whose state goes through JSON before every step plans exactly the same', () => {
    expect(drive({ ...eventful(), roundTrip: true })).toStrictEqual(drive(eventful()));
  });
});
