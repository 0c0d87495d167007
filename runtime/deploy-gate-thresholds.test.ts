import { describe, expect, it } from 'vitest';
import { evalGates, gateVerdict, thresholdProblem } from './deploy-gate-thresholds.js';
import type { CaseReport, EvalReport, GateResult } from './eval/eval-results.js';

/** A report of `cases`, with the eval's own `gates` (as runEval's summarised gives them). */
function report(cases: Partial<CaseReport>[], gates: GateResult[] = []): EvalReport {
  const full = cases.map((item, i) => ({ id: `run-${i}`, source: 'x', prompt: 'p', pass: true, ...item }));
  const evaluated = full.filter((item) => !item.error);
  return {
    cases: full,
    gates,
    summary: {
      cases: full.length,
      errors: full.length - evaluated.length,
      evaluated: evaluated.length,
      changedCases: evaluated.filter((item) => (item.changes?.length ?? 0) > 0).length,
      newHumanAsks: evaluated.filter((item) => (item.candidate?.newAsks.length ?? 0) > 0).length,
    },
  } as unknown as EvalReport;
}

const change = (text: string) => ({ kind: 'answer' as const, before: null, after: null, text });
const asking = (text: string) =>
  ({ newAsks: [{ kind: 'review' as const, text }] }) as unknown as CaseReport['candidate'];

describe("a deploy gate's thresholds", () => {
  const cases = [
    { id: 'a', open: true as const, changes: [change('calls lookup_order with other arguments')] },
    { id: 'b', open: true as const, changes: [] },
    { id: 'c', changes: [change('answers "x" instead of "y"')], candidate: asking('issue_credit {"orderId":"a-3"}') },
    { id: 'd', changes: [] },
  ];

  it('refuses a share of changed cases over maxChanged, naming the runs and their decisions', () => {
    const verdict = gateVerdict(report(cases), { maxChanged: 0.25 });
    expect(verdict.passed).toBe(false);
    expect(verdict.gates).toContainEqual({ gate: 'maxChanged', limit: 0.25, actual: 0.5, crossed: true });
    expect(verdict.changed).toEqual([
      { id: 'a', open: true, decisions: ['calls lookup_order with other arguments'], newAsks: [] },
      {
        id: 'c',
        open: false,
        decisions: ['answers "x" instead of "y"'],
        newAsks: ['review: issue_credit {"orderId":"a-3"}'],
      },
    ]);
    expect(verdict).toMatchObject({ cases: 4, evaluated: 4, openRuns: 2 });
  });

  it('passes at the limit itself, and under it', () => {
    expect(gateVerdict(report(cases), { maxChanged: 0.5 }).passed).toBe(true);
    expect(gateVerdict(report(cases), { maxChanged: 0.49 }).passed).toBe(false);
    expect(gateVerdict(report(cases), {}).passed).toBe(true);
  });

  it('counts cases that would ask someone new against maxNewAsks, which replaces the eval’s yes/no gate', () => {
    expect(evalGates({ maxNewAsks: 1 })).toEqual({ failOnNewHumanAsk: false });
    expect(evalGates({})).toEqual({});
    expect(evalGates({ maxPassRateDrop: 0.2, minPassRate: 0.5, maxCostIncrease: 0.1 })).toEqual({
      maxPassRateDrop: 0.2,
      minPassRate: 0.5,
      maxCostIncrease: 0.1,
    });
    expect(gateVerdict(report(cases), { maxNewAsks: 0 }).gates).toContainEqual({
      gate: 'maxNewAsks',
      limit: 0,
      actual: 1,
      crossed: true,
    });
    expect(gateVerdict(report(cases), { maxNewAsks: 1 }).passed).toBe(true);
  });

  it("keeps the eval's own gates: one crossed refuses the build", () => {
    const crossed = { gate: 'maxPassRateDrop', limit: 0, actual: 0.25, crossed: true };
    expect(gateVerdict(report(cases, [crossed]), { maxChanged: 1 }).passed).toBe(false);
  });

  it('refuses a case it could not evaluate unless allowErrors, and an evaluation of no case', () => {
    const withError = [...cases, { id: 'e', error: { code: 'continued_as_new' as const, message: 'a chain' } }];
    const refused = gateVerdict(report(withError), {});
    expect(refused.passed).toBe(false);
    expect(refused.gates).toContainEqual({ gate: 'caseErrors', limit: 0, actual: 1, crossed: true });
    expect(refused.errors).toEqual([{ id: 'e', code: 'continued_as_new', message: 'a chain' }]);
    expect(gateVerdict(report(withError), { allowErrors: true }).passed).toBe(true);
    expect(gateVerdict(report([]), { allowErrors: true }).passed).toBe(false);
  });

  it('says what a threshold must be', () => {
    expect(thresholdProblem('maxChanged', 0.3)).toBeUndefined();
    expect(thresholdProblem('maxChanged', 1.5)).toBe('is a share from 0 to 1');
    expect(thresholdProblem('maxNewAsks', 2)).toBeUndefined();
    expect(thresholdProblem('maxNewAsks', -1)).toBe('is a whole number, 0 or more');
    expect(thresholdProblem('maxCostIncrease', 2)).toBeUndefined();
    expect(thresholdProblem('minPassRate', Number.NaN)).toBe('is a number');
    expect(thresholdProblem('allowErrors', 'yes')).toBe('is true or false');
  });
});
