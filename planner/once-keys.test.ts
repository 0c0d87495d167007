/**
 * Idempotency keys of `once` calls as the planner keeps them: a key per call that runs, the same
 * key again for a call whose outcome is unknown, a new key for a deliberate repeat, and a key that
 * survives a re-plan of the same batch.
 */
import { describe, expect, it } from 'vitest';
import { argsHash } from '../shared/identity/hash.js';
import { keyOnceCalls, settleOnceCalls } from './once-keys.js';
import { planReviewed } from './plan-human.js';
import { planResume } from './plan-resume.js';
import { planStart } from './plan-start.js';
import type { PlannerState } from './plan.js';
import { resolvePolicy } from './policy.js';
import { checked, failed, ok, stepOf, toolCall, turnWith, TOOLS } from './testing.js';
import type { ToolCall } from '../shared/tools/tool-call.js';

const RUN = 'wf-7';
const refund = toolCall('refund', { order_id: 'A-17', amount: 120 }, '1.1');
const keyOf = (call: ToolCall, n: number) => `${RUN}/${call.name}#${argsHash(call.args)}/${n}`;
const fresh = (): PlannerState => planStart({ policy: resolvePolicy({}), tools: TOOLS, now: 0, runKey: RUN }).state;

/** A model turn making `calls` (`once` unless said otherwise), admitted and about to run. */
function running(
  state: PlannerState,
  calls: readonly ToolCall[],
  sideEffects: 'once' | 'none' | 'idempotent' = 'once',
): PlannerState {
  const plan = turnWith(
    state,
    calls.map((c) => checked(c, { sideEffects })),
  );
  stepOf(plan, 'execute_tools');
  return plan.state;
}

/** The state after `calls` ran in a new turn and answered `answer`. */
function ranThen(
  state: PlannerState,
  call: ToolCall,
  answer: (call: ToolCall) => ReturnType<typeof ok> | ReturnType<typeof failed>,
): PlannerState {
  return planResume(running(state, [call]), [answer(call)], 0).state;
}

describe('once keys', () => {
  it('gives a once call about to run a key that starts with the run id and names the tool and arguments', () => {
    const state = running(fresh(), [refund]);
    expect(state.batch?.onceKeys).toEqual({ '1.1': keyOf(refund, 1) });
    expect(state.onceLedger).toEqual({ [`refund#${argsHash(refund.args)}`]: { issued: 1, unknown: [] } });
  });

  it('gives no key to calls without side effects or idempotent ones, and leaves the ledger alone', () => {
    for (const sideEffects of ['none', 'idempotent'] as const) {
      const state = running(fresh(), [refund], sideEffects);
      expect(state.batch?.onceKeys).toBeUndefined();
      expect(state.onceLedger).toBeUndefined();
    }
  });

  it('keys only the once calls of a mixed batch, each by its own arguments', () => {
    const other = toolCall('refund', { order_id: 'B-2', amount: 5 }, '1.2');
    const search = toolCall('search_orders', { status: 'shipped' }, '1.3');
    const plan = turnWith(fresh(), [
      checked(refund, { sideEffects: 'once' }),
      checked(search),
      checked(other, { sideEffects: 'once' }),
    ]);
    expect(plan.state.batch?.onceKeys).toEqual({ '1.1': keyOf(refund, 1), '1.2': keyOf(other, 1) });
  });

  it('a deliberate repeat after a known outcome gets a new key: the refund is paid twice', () => {
    for (const answer of [ok, (c: ToolCall) => failed(c, 'semantic_error')]) {
      const again = { ...refund, toolCallId: '2.1' };
      const state = running(ranThen(fresh(), refund, answer), [again]);
      expect(state.batch?.onceKeys).toEqual({ '2.1': keyOf(refund, 2) });
    }
  });

  it('a call whose outcome is unknown gives its key back: the same call again reuses it, so the tool can dedupe', () => {
    for (const code of ['outcome_unknown', 'cancelled'] as const) {
      const settled = ranThen(fresh(), refund, (c) => failed(c, code));
      expect(settled.onceLedger).toEqual({ [`refund#${argsHash(refund.args)}`]: { issued: 1, unknown: [1] } });
      const again = { ...refund, toolCallId: '2.1' };
      expect(running(settled, [again]).batch?.onceKeys).toEqual({ '2.1': keyOf(refund, 1) });
    }
  });

  it("an unknown outcome gives back the key of its own call's arguments, among other calls of the batch", () => {
    const search = toolCall('search_orders', { status: 'shipped' }, '1.1');
    const late = { ...refund, toolCallId: '1.2' };
    const plan = turnWith(fresh(), [checked(search), checked(late, { sideEffects: 'once' })]);
    const settled = planResume(plan.state, [ok(search), failed(late, 'outcome_unknown')], 0).state;
    expect(settled.onceLedger).toEqual({ [`refund#${argsHash(refund.args)}`]: { issued: 1, unknown: [1] } });
  });

  it('an unknown outcome of another call, or of a call without a key, leaves the ledger as it was', () => {
    const state = running(fresh(), [refund]);
    const other = toolCall('lookup', { id: 1 }, '9.9');
    expect(settleOnceCalls(state, [failed(other, 'outcome_unknown')])).toBe(state);
    const plain = running(fresh(), [refund], 'none');
    expect(settleOnceCalls(plain, [failed(refund, 'outcome_unknown')])).toBe(plain);
    expect(settleOnceCalls(fresh(), [failed(refund, 'outcome_unknown')])).toEqual(fresh());
  });

  it("a once call's key survives a re-plan of its batch: keying again issues nothing new", () => {
    const twin = { ...refund, toolCallId: '1.2' };
    const state = running(fresh(), [refund]);
    expect(keyOnceCalls(state, [refund])).toBe(state);
    // Its twin in the same batch (a person who wants two refunds) gets the next key; 1.1 keeps its own.
    const both: PlannerState = {
      ...state,
      batch: { ...state.batch!, entries: [...state.batch!.entries, { ...state.batch!.entries[0]!, call: twin }] },
    };
    const keyed = keyOnceCalls(both, [refund, twin]);
    expect(keyed.batch?.onceKeys).toEqual({ '1.1': keyOf(refund, 1), '1.2': keyOf(refund, 2) });
    expect(keyed.onceLedger).toEqual({ [`refund#${argsHash(refund.args)}`]: { issued: 2, unknown: [] } });
  });

  it('keys nothing without a batch, or for calls the batch does not hold', () => {
    const state = fresh();
    expect(keyOnceCalls(state, [refund])).toBe(state);
    const batched = running(fresh(), [refund], 'none');
    expect(keyOnceCalls(batched, [{ ...refund, toolCallId: '7.7' }])).toBe(batched);
  });

  it('a batch carried from an older run, without argument hashes, keys nothing and settles nothing', () => {
    const state = running(fresh(), [refund]);
    const old: PlannerState = {
      ...state,
      batch: { ...state.batch!, entries: state.batch!.entries.map(({ argsHash: _, ...e }) => e) },
    };
    const unkeyed: PlannerState = { ...old, batch: { ...old.batch!, onceKeys: undefined } };
    expect(keyOnceCalls(unkeyed, [refund])).toBe(unkeyed);
    expect(settleOnceCalls(old, [failed(refund, 'outcome_unknown')])).toBe(old);
  });

  it('a reviewed once call is keyed by the arguments it runs with after an edit', () => {
    const plan = turnWith(fresh(), [checked(refund, { sideEffects: 'once', needsApproval: true })]);
    expect(plan.state.batch?.onceKeys).toBeUndefined();
    const args = { order_id: 'A-17', amount: 100 };
    const edited = planReviewed(plan.state, { '1.1': { type: 'edit', args, argsHash: argsHash(args) } }, 0);
    expect(edited.state.batch?.onceKeys).toEqual({ '1.1': keyOf({ ...refund, args }, 1) });
  });

  it('keys start with an empty run id when the run has none (older runs)', () => {
    const state = planStart({ policy: resolvePolicy({}), tools: TOOLS, now: 0 }).state;
    expect(running(state, [refund]).batch?.onceKeys).toEqual({ '1.1': `/refund#${argsHash(refund.args)}/1` });
  });
});
