import { describe, expect, it } from 'vitest';
import type { ReconcileCall, ReconcileReport } from '../shared/tools/reconcile.js';
import {
  checked,
  drive,
  failed,
  ok,
  rawCall,
  start,
  textReply,
  toolCall,
  toolCallsReply,
  turnWith,
} from './testing.js';
import { MAX_RECONCILES, planReconcile, planReconciled } from './plan-reconcile.js';
import { resultAfterRetries } from '../shared/failures/after-retries.js';
import { toolError } from '../shared/failures/tool-error.js';

const refund = rawCall('refund', { orderId: 'A-1', amount: 20 });
/** The model refunds once, then answers. */
const model = [toolCallsReply([refund]), textReply('Refunded.')];
const once = { refund: 'once' } as const;

/** A world where the first run of the refund is lost (outcome unknown) and later runs succeed. */
function world(reconcile?: (call: ReconcileCall) => ReconcileReport, lost = 1) {
  return {
    model,
    sideEffects: once,
    roundTrip: true,
    tool: (call: Parameters<typeof ok>[0], run: number) =>
      call.name === 'refund' && run <= lost ? failed(call, 'outcome_unknown') : ok(call, { reference: `RF-${run}` }),
    answer: () => 'It did not.',
    ...(reconcile && { reconcile }),
  };
}

describe('reconciling an unknown outcome', () => {
  it("records what happened as the call's result: no person is asked, no second run, the model sees a normal result", () => {
    const asked: ReconcileCall[] = [];
    const trace = drive(
      world(
        (call) => (
          asked.push(call),
          { toolCallId: call.call.toolCallId, happened: true, result: ok(call.call, { reference: 'RF-1' }) }
        ),
      ),
    );
    expect(trace.last.step).toMatchObject({ type: 'finish', answer: 'Refunded.' });
    expect(trace.plans.some((p) => p.step.type === 'await_clarification')).toBe(false);
    expect(trace.executed).toHaveLength(1);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.idempotencyKey).toMatch(/\/refund#.+\/1$/);
    expect(trace.records).toEqual([
      expect.objectContaining({ status: 'ok', result: { reference: 'RF-1' }, reconciled: true }),
    ]);
    expect(trace.transcript.find((m) => m.role === 'tool')).toMatchObject({ content: { reference: 'RF-1' } });
  });

  it('runs the call again under the same key when it did not happen', () => {
    const trace = drive(world((call) => ({ toolCallId: call.call.toolCallId, happened: false })));
    expect(trace.last.step).toMatchObject({ type: 'finish' });
    expect(trace.plans.some((p) => p.step.type === 'await_clarification')).toBe(false);
    expect(trace.executed.map((c) => c.toolCallId)).toEqual(['1.1', '1.1']);
    const keys = trace.plans.flatMap((p) => (p.step.type === 'execute_tools' ? [p.state.batch!.onceKeys!['1.1']] : []));
    expect(new Set(keys).size).toBe(1);
    expect(trace.records).toEqual([expect.objectContaining({ status: 'ok', result: { reference: 'RF-2' } })]);
    // The key is settled as known: a deliberate repeat later would get a new one.
    expect(Object.values(trace.last.state.onceLedger!)[0]).toEqual({ issued: 1, unknown: [] });
  });

  it('asks a person, as without reconcile, when the tool cannot tell', () => {
    const trace = drive(world((call) => ({ toolCallId: call.call.toolCallId, unknown: 'the payment API is down' })));
    const question = trace.plans.find((p) => p.step.type === 'await_clarification');
    expect(question?.step).toMatchObject({
      clarification: { question: expect.stringMatching(/^refund \(call 1\.1.*nobody knows whether it took effect/) },
    });
  });

  it('asks a person after MAX_RECONCILES rounds of "did not happen" and a lost re-run', () => {
    let reconciles = 0;
    const trace = drive(world((call) => (reconciles++, { toolCallId: call.call.toolCallId, happened: false }), 100));
    expect(reconciles).toBe(MAX_RECONCILES);
    expect(trace.executed).toHaveLength(MAX_RECONCILES + 1);
    expect(trace.plans.some((p) => p.step.type === 'await_clarification')).toBe(true);
  });

  it('without reconcile asks a person, as before', () => {
    const trace = drive(world());
    expect(trace.plans.some((p) => p.step.type === 'reconcile')).toBe(false);
    expect(trace.plans.some((p) => p.step.type === 'await_clarification')).toBe(true);
  });

  it("holds the batch's other results while reconciling, and records them in call order", () => {
    const lookup = rawCall('lookup', { orderId: 'A-1' });
    const trace = drive({
      ...world((call) => ({
        toolCallId: call.call.toolCallId,
        happened: true,
        result: ok(call.call, { reference: 'RF-1' }),
      })),
      model: [toolCallsReply([lookup, refund]), textReply('Done.')],
    });
    expect(trace.records.map((r) => [r.name, r.status])).toEqual([
      ['lookup', 'ok'],
      ['refund', 'ok'],
    ]);
  });

  it('records the held results as they came back when the run is cancelled while reconciling', () => {
    const trace = drive({
      ...world((call) => ({ toolCallId: call.call.toolCallId, happened: false })),
      signals: [{ atPlan: 2, cancel: 'stop' }],
      model: [...model, textReply('Stopped.')],
    });
    expect(trace.plans[2]!.step.type).toBe('reconcile');
    expect(trace.records).toEqual([
      expect.objectContaining({ status: 'error', error: expect.objectContaining({ code: 'outcome_unknown' }) }),
    ]);
  });

  it('settles each call by its own report: one happened, the other runs again', () => {
    const other = rawCall('refund', { orderId: 'B-2', amount: 5 });
    const trace = drive({
      ...world((call) =>
        (call.call.args as { orderId: string }).orderId === 'A-1'
          ? { toolCallId: call.call.toolCallId, happened: true, result: ok(call.call, { reference: 'RF-A' }) }
          : { toolCallId: call.call.toolCallId, happened: false },
      ),
      model: [toolCallsReply([refund, other]), textReply('Refunded both.')],
    });
    expect(trace.executed.map((c) => c.toolCallId)).toEqual(['1.1', '1.2', '1.2']);
    expect(trace.records).toEqual([
      expect.objectContaining({ toolCallId: '1.1', status: 'ok', result: { reference: 'RF-A' }, reconciled: true }),
      expect.objectContaining({ toolCallId: '1.2', status: 'ok', result: { reference: 'RF-2' } }),
    ]);
  });

  it('while reconciling, the run is still at its tools and the model is told nothing', () => {
    const trace = drive(world((call) => ({ toolCallId: call.call.toolCallId, happened: false })));
    const reconciling = trace.plans.find((p) => p.step.type === 'reconcile')!;
    expect(reconciling).toMatchObject({ state: { phase: 'tools' }, record: [], notes: [] });
  });

  it('results that answer no call in progress are not reconciled', () => {
    const lost = failed(toolCall('refund', {}, '1.1'), 'outcome_unknown');
    expect(planReconcile(start().state, [lost], 0)).toBeUndefined();
    const running = turnWith(start().state, [checked(toolCall('lookup', {}, '1.1'))]);
    expect(planReconcile(running.state, [failed(toolCall('refund', {}, '9.9'), 'outcome_unknown')], 0)).toBeUndefined();
  });

  it('reports without held results are a driver bug', () => {
    expect(() => planReconciled(start().state, [], 0)).toThrow('planReconciled: no results held for reconciling');
  });
});

describe('a once call that never began (the fence, shared/tools/once-fence.ts)', () => {
  const cause = toolError('timeout', 'activity Heartbeat timeout');
  const neverBegan = (call: Parameters<typeof ok>[0]) => resultAfterRetries(call, cause, 'once', true);
  /** The refund's first `lost` runs never begin; later runs succeed. */
  const fenced = (lost: number, reconcile?: (call: ReconcileCall) => ReconcileReport) => ({
    ...world(reconcile),
    tool: (call: Parameters<typeof ok>[0], run: number) =>
      call.name === 'refund' && run <= lost ? neverBegan(call) : ok(call, { reference: `RF-${run}` }),
  });

  it('runs again under the same key: nobody is asked, no reconcile, the model sees only the result', () => {
    const trace = drive(fenced(1));
    expect(trace.last.step).toMatchObject({ type: 'finish', answer: 'Refunded.' });
    expect(trace.plans.some((p) => p.step.type === 'await_clarification')).toBe(false);
    expect(trace.plans.some((p) => p.step.type === 'reconcile')).toBe(false);
    expect(trace.executed.map((c) => c.toolCallId)).toEqual(['1.1', '1.1']);
    const keys = trace.plans.flatMap((p) => (p.step.type === 'execute_tools' ? [p.state.batch!.onceKeys!['1.1']] : []));
    expect(new Set(keys).size).toBe(1);
    expect(trace.records).toEqual([expect.objectContaining({ status: 'ok', result: { reference: 'RF-2' } })]);
  });

  it('is not reconciled even when the tool has reconcile: the fence already knows', () => {
    let asked = 0;
    const trace = drive(fenced(1, (call) => (asked++, { toolCallId: call.call.toolCallId, happened: false })));
    expect(asked).toBe(0);
    expect(trace.records).toEqual([expect.objectContaining({ status: 'ok', result: { reference: 'RF-2' } })]);
  });

  it('beside an unknown outcome in the same batch: that one is reconciled, this one runs again', () => {
    const other = rawCall('refund', { orderId: 'B-2', amount: 5 });
    let asked = 0;
    const trace = drive({
      ...world((call) => (asked++, { toolCallId: call.call.toolCallId, happened: false })),
      model: [toolCallsReply([refund, other]), textReply('Refunded both.')],
      tool: (call: Parameters<typeof ok>[0], run: number) =>
        run > 1
          ? ok(call, { reference: `RF-${run}` })
          : (call.args as { orderId: string }).orderId === 'A-1'
            ? neverBegan(call)
            : failed(call, 'outcome_unknown'),
    });
    expect(asked).toBe(1);
    expect(trace.plans.some((p) => p.step.type === 'await_clarification')).toBe(false);
    expect(trace.executed.map((c) => c.toolCallId)).toEqual(['1.1', '1.2', '1.1', '1.2']);
    expect(trace.records.map((r) => r.status)).toEqual(['ok', 'ok']);
  });

  it("misses that never began do not use up a later reconcile: a busy worker's misses, then a lost run", () => {
    let asked = 0;
    const trace = drive({
      ...world((call) => (asked++, { toolCallId: call.call.toolCallId, happened: false })),
      tool: (call: Parameters<typeof ok>[0], run: number) =>
        run <= MAX_RECONCILES
          ? neverBegan(call)
          : run === MAX_RECONCILES + 1
            ? failed(call, 'outcome_unknown')
            : ok(call, { reference: `RF-${run}` }),
    });
    expect(asked).toBe(1);
    expect(trace.plans.some((p) => p.step.type === 'await_clarification')).toBe(false);
    expect(trace.executed).toHaveLength(MAX_RECONCILES + 2);
    expect(trace.records).toEqual([expect.objectContaining({ status: 'ok' })]);
  });

  it('stops running it again after MAX_RECONCILES: the timeout goes on as any timeout', () => {
    const trace = drive(fenced(100));
    expect(trace.executed).toHaveLength(MAX_RECONCILES + 1);
    expect(trace.plans.some((p) => p.step.type === 'await_clarification')).toBe(false);
    expect(trace.records).toEqual([
      expect.objectContaining({ status: 'error', error: expect.objectContaining({ code: 'timeout' }) }),
    ]);
  });
});
