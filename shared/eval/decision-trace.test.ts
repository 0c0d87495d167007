import { describe, expect, it } from 'vitest';
import { argsHash } from '../identity/hash.js';
import { argumentChanges, diffDecisions, traceOf, type DecisionTrace } from './decision-trace.js';
import type { Recording } from './recording.js';

const call = (turn: number, name: string, args: Record<string, unknown>) => ({
  turn,
  name,
  args: args as never,
  argsHash: argsHash(args as never),
});

const trace = (over: Partial<DecisionTrace> = {}): DecisionTrace => ({
  calls: [call(1, 'lookup_order', { orderId: 'A-1' }), call(2, 'issue_refund', { orderId: 'A-1', amount: 20 })],
  turns: 3,
  repairs: 0,
  backOffs: 0,
  disabledTools: [],
  clarifications: 0,
  reviews: 1,
  budgets: 0,
  outcome: 'answered',
  answer: 'Refunded 20.',
  usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.01 },
  durationMs: 100,
  ...over,
});

describe('diffDecisions', () => {
  it('finds nothing between a trace and itself, whatever its usage and duration', () => {
    expect(
      diffDecisions(trace(), trace({ usage: { inputTokens: 1, outputTokens: 1, costUsd: 9 }, durationMs: 5 })),
    ).toEqual([]);
  });

  it('names a skipped tool, a new one, changed arguments and a changed count', () => {
    const after = trace({
      calls: [
        call(1, 'issue_refund', { orderId: 'A-1', amount: 70 }),
        call(2, 'issue_refund', { orderId: 'A-1', amount: 70 }),
        call(2, 'track_shipment', { orderId: 'A-1' }),
      ],
    });
    expect(diffDecisions(trace(), after).map((c) => [c.kind, c.tool, c.text])).toEqual([
      ['arguments_changed', 'issue_refund', 'calls issue_refund (call 1) with other arguments: amount: 20 → 70'],
      ['call_count', 'issue_refund', 'calls issue_refund 2 times instead of once'],
      ['tool_skipped', 'lookup_order', 'no longer calls lookup_order (called once before)'],
      ['tool_added', 'track_shipment', 'now calls track_shipment (once), which it did not before'],
    ]);
  });

  it('names each planner action that changed, the outcome and the answer', () => {
    const after = trace({
      turns: 4,
      repairs: 1,
      backOffs: 2,
      disabledTools: ['carrier_status'],
      clarifications: 1,
      reviews: 0,
      budgets: 1,
      outcome: 'loop_detected',
      answer: 'Sorry.',
    });
    expect(diffDecisions(trace(), after).map((c) => c.text)).toEqual([
      'repairs: 0 → 1',
      'back-offs: 0 → 2',
      'questions to a person: 0 → 1',
      'reviews by a person: 1 → 0',
      'budget requests to a person: 0 → 1',
      'model turns: 3 → 4',
      'tools disabled: none → carrier_status',
      'ends loop_detected instead of answered',
      'answers "Sorry." instead of "Refunded 20."',
    ]);
    expect(diffDecisions(after, trace({ disabledTools: ['a', 'b'] })).find((c) => c.kind === 'disabled_tools')).toEqual(
      {
        kind: 'disabled_tools',
        before: ['carrier_status'],
        after: ['a', 'b'],
        text: 'tools disabled: carrier_status → a, b',
      },
    );
    expect(diffDecisions(trace(), after).map((c) => [c.kind, c.before, c.after])).toEqual([
      ['repairs', 0, 1],
      ['back_offs', 0, 2],
      ['clarifications', 0, 1],
      ['reviews', 1, 0],
      ['budgets', 0, 1],
      ['turns', 3, 4],
      ['disabled_tools', [], ['carrier_status']],
      ['outcome', 'answered', 'loop_detected'],
      ['answer', 'Refunded 20.', 'Sorry.'],
    ]);
  });

  it('compares answers without surrounding whitespace', () => {
    expect(diffDecisions(trace(), trace({ answer: '  Refunded 20.\n' }))).toEqual([]);
    expect(diffDecisions(trace(), trace({ answer: null })).map((c) => c.text)).toEqual([
      'answers nothing instead of "Refunded 20."',
    ]);
    expect(diffDecisions(trace({ answer: null }), trace({ answer: ' ' }))).toEqual([]);
    expect(diffDecisions(trace(), trace({ answer: 'z'.repeat(90) }))[0]!.text).toBe(
      `answers "${'z'.repeat(80)}…" instead of "Refunded 20."`,
    );
  });
});

describe('argumentChanges', () => {
  it('lists the fields that differ, added and removed ones too', () => {
    expect(argumentChanges({ a: 1, b: 2 }, { a: 1, b: 3, c: 'x' })).toBe('b: 2 → 3, c: (none) → "x"');
    expect(argumentChanges({ a: 1 }, {})).toBe('a: 1 → (none)');
    expect(argumentChanges('raw', { a: 1 })).toBe('"raw" → {"a":1}');
    // In field order; a field set to null is not a field left out; long values are clipped.
    expect(argumentChanges({ b: 1, a: 1 }, { a: 2, b: 2 })).toBe('a: 1 → 2, b: 1 → 2');
    expect(argumentChanges({ a: null }, {})).toBe('a: null → (none)');
    expect(argumentChanges({ a: 'x'.repeat(70) }, { a: 'y' })).toBe(`a: "${'x'.repeat(59)}… → "y"`);
  });
});

describe('traceOf', () => {
  const recording = (over: Partial<Recording> = {}): Recording => ({
    agent: 'test',
    prompt: 'p',
    input: { agent: 'test', prompt: 'p' },
    modelTurns: [
      {
        toolChoice: 'auto',
        toolNames: ['a', 'b'],
        outcome: { status: 'ok', response: { toolCalls: [{ id: 'c', name: 'a', arguments: '{"x":1' }] } },
      },
      {
        toolChoice: { tool: 'a' },
        toolNames: ['a'],
        outcome: { status: 'ok', response: { toolCalls: [{ id: 'c', name: 'a', arguments: '{"x":1}' }] } },
      },
      { toolChoice: 'none', toolNames: [], outcome: { status: 'ok', response: { text: 'done', toolCalls: [] } } },
    ],
    toolRuns: [],
    answers: [{ id: 'q1', answer: 'yes' }],
    reviews: [],
    budgets: [],
    backOffs: 2,
    end: {
      status: 'completed',
      result: {
        answer: 'done',
        outcome: { status: 'ended', code: 'limit_reached' },
        usage: { inputTokens: 3, outputTokens: 4, costUsd: 0.5 },
      },
    },
    durationMs: 42,
    ...over,
  });

  it('reads calls (malformed arguments as their text), repairs, disabled tools, people and the end', () => {
    const traced = traceOf(recording(), { reviews: 1 });
    expect(traced.calls.map((c) => [c.turn, c.name, c.args])).toEqual([
      [1, 'a', '{"x":1'],
      [2, 'a', { x: 1 }],
    ]);
    expect(traced).toMatchObject({
      turns: 3,
      repairs: 1,
      backOffs: 2,
      disabledTools: ['b'],
      clarifications: 1,
      reviews: 1,
      outcome: 'limit_reached',
      answer: 'done',
      usage: { inputTokens: 3, outputTokens: 4, costUsd: 0.5 },
      durationMs: 42,
    });
  });

  it('counts each question and review once, however often it was answered, plus the ones nobody answered', () => {
    const traced = traceOf(
      recording({
        answers: [
          { id: 'q1', answer: '  ' },
          { id: 'q1', answer: 'yes' },
          { id: 'q2', answer: 'no' },
        ],
        reviews: [
          { toolCallId: '1.1', argsHash: 'h', decision: { type: 'accept' } },
          { toolCallId: '1.1', argsHash: 'h', decision: { type: 'accept' } },
        ],
        budgets: [{ id: 'b1', decision: { type: 'stop' } }],
      }),
      { clarifications: 1, reviews: 2, budgets: 1 },
    );
    expect([traced.clarifications, traced.reviews, traced.budgets]).toEqual([3, 3, 2]);
  });

  it('reads what is missing or odd as nothing: no turns, calls without a name, arguments as objects, usage not numbers', () => {
    const traced = traceOf(
      recording({
        modelTurns: [
          {
            toolChoice: 'auto',
            toolNames: ['b', 'a', 'c'],
            outcome: {
              status: 'ok',
              response: { toolCalls: [{ id: 'x' }, { id: 'y', name: 'a', arguments: { z: 2 } }] },
            },
          },
          { toolChoice: 'auto', toolNames: ['b'], outcome: { status: 'error', error: { code: 'internal_error' } } },
        ],
        end: { status: 'completed', result: { answer: 7, usage: { inputTokens: 'many', costUsd: Number.NaN } } },
      }),
    );
    expect(traced.calls).toEqual([{ turn: 1, name: 'a', args: { z: 2 }, argsHash: argsHash({ z: 2 }) }]);
    expect(traced.disabledTools).toEqual(['a', 'c']);
    expect(traced.usage).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
    expect(traced).toMatchObject({ answer: null, outcome: 'answered' });
    expect(traceOf(recording({ modelTurns: [] }))).toMatchObject({
      turns: 0,
      calls: [],
      disabledTools: [],
      repairs: 0,
    });
  });

  it('says how a run that did not complete closed', () => {
    expect(traceOf(recording({ end: { status: 'failed', failure: 'boom' } })).outcome).toBe('failed: boom');
    expect(traceOf(recording({ end: { status: 'terminated' } })).outcome).toBe('terminated');
    expect(traceOf(recording({ end: { status: 'failed' } })).outcome).toBe('failed: unknown');
    expect(traceOf(recording({ end: { status: 'completed', result: { outcome: { status: 'ended' } } } })).outcome).toBe(
      'ended',
    );
    expect(
      traceOf(recording({ end: { status: 'completed', result: { answer: 'x', outcome: { status: 'answered' } } } }))
        .outcome,
    ).toBe('answered');
  });
});
