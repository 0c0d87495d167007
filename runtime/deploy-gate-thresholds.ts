/**
 * The thresholds of a deploy gate's evaluation (runtime/deploy-gate.ts): the eval's own gates
 * (defineEval `gates`), some of them overridden, and two of the gate's own — the share of cases
 * whose decisions changed, and how many cases would ask a person the recording does not answer —
 * read off an evaluation's report, with the runs and decisions that crossed them. Pure.
 */
import type { Gates } from '../shared/eval/define-eval.js';
import type { EvalReport, GateResult } from './eval/eval-results.js';

export interface GateThresholds {
  /** The largest share (0–1) of evaluated cases whose decisions may change. */
  readonly maxChanged?: number;
  /** The most cases that may ask a person the recording does not answer; set, it replaces the eval's `failOnNewHumanAsk`. */
  readonly maxNewAsks?: number;
  /** Over the eval's gates of the same names. */
  readonly maxPassRateDrop?: number;
  readonly minPassRate?: number;
  readonly maxCostIncrease?: number;
  /** Cases that cannot be evaluated (another agent's, a chain continued as new…) do not refuse the build. */
  readonly allowErrors?: boolean;
}

/** The eval's gates that `thresholds` override, for runEval's `gates`. */
export function evalGates(thresholds: GateThresholds): Gates {
  return {
    ...(thresholds.maxPassRateDrop !== undefined && { maxPassRateDrop: thresholds.maxPassRateDrop }),
    ...(thresholds.minPassRate !== undefined && { minPassRate: thresholds.minPassRate }),
    ...(thresholds.maxCostIncrease !== undefined && { maxCostIncrease: thresholds.maxCostIncrease }),
    // The count below replaces the eval's yes/no gate.
    ...(thresholds.maxNewAsks !== undefined && { failOnNewHumanAsk: false }),
  };
}

/** One case whose decisions changed, or that would ask someone new: which run, and what. */
export interface ChangedCase {
  /** The case: a run's workflow id (open runs, and runs from a query), a file, or a dataset id. */
  readonly id: string;
  /** A run still open, that would move to the build. */
  readonly open: boolean;
  /** Every decision the candidate took differently, in words. */
  readonly decisions: readonly string[];
  /** The people it would have asked whom the recording does not answer. */
  readonly newAsks: readonly string[];
}

export interface GateVerdict {
  readonly passed: boolean;
  /** Every gate, crossed or not: the eval's and the thresholds'. */
  readonly gates: readonly GateResult[];
  readonly cases: number;
  readonly evaluated: number;
  /** Of the evaluated cases, the runs still open. */
  readonly openRuns: number;
  readonly changed: readonly ChangedCase[];
  readonly errors: readonly { readonly id: string; readonly code: string; readonly message: string }[];
}

/** The gate's verdict on an evaluation's report (run with `evalGates(thresholds)` over the eval's gates). */
export function gateVerdict(report: EvalReport, thresholds: GateThresholds): GateVerdict {
  const { evaluated, changedCases, newHumanAsks } = report.summary;
  const gates: GateResult[] = [...report.gates];
  // The gate evaluates every case it can; one it cannot refuses the build unless allowed.
  const errors = report.summary.errors;
  if (!thresholds.allowErrors && !gates.some((gate) => gate.gate === 'caseErrors'))
    gates.push({ gate: 'caseErrors', limit: 0, actual: errors, crossed: errors > 0 });
  if (thresholds.maxChanged !== undefined) {
    const share = evaluated === 0 ? 0 : changedCases / evaluated;
    gates.push({
      gate: 'maxChanged',
      limit: thresholds.maxChanged,
      actual: Math.round(share * 1e4) / 1e4,
      crossed: share > thresholds.maxChanged + 1e-9,
    });
  }
  if (thresholds.maxNewAsks !== undefined)
    gates.push({
      gate: 'maxNewAsks',
      limit: thresholds.maxNewAsks,
      actual: newHumanAsks,
      crossed: newHumanAsks > thresholds.maxNewAsks,
    });
  const changed = report.cases.flatMap((item): ChangedCase[] => {
    const decisions = (item.changes ?? []).map((change) => change.text);
    const newAsks = (item.candidate?.newAsks ?? []).map((ask) => `${ask.kind}: ${ask.text}`);
    return item.error || (decisions.length === 0 && newAsks.length === 0)
      ? []
      : [{ id: item.id, open: item.open === true, decisions, newAsks }];
  });
  return {
    passed: evaluated > 0 && gates.every((gate) => !gate.crossed),
    gates,
    cases: report.summary.cases,
    evaluated,
    openRuns: report.cases.filter((item) => item.open && !item.error).length,
    changed,
    errors: report.cases.flatMap((item) => (item.error ? [{ id: item.id, ...item.error }] : [])),
  };
}

/** A threshold's problem, for a flag or a config entry: a share is 0–1, a count a whole number ≥ 0. */
export function thresholdProblem(name: keyof GateThresholds, value: unknown): string | undefined {
  if (name === 'allowErrors') return typeof value === 'boolean' ? undefined : 'is true or false';
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'is a number';
  if (name === 'maxNewAsks') return Number.isInteger(value) && value >= 0 ? undefined : 'is a whole number, 0 or more';
  if (name === 'maxCostIncrease') return value >= 0 ? undefined : 'is a share, 0 or more (0.1 = 10%)';
  return value >= 0 && value <= 1 ? undefined : 'is a share from 0 to 1';
}

export const THRESHOLD_NAMES: readonly (keyof GateThresholds)[] = [
  'maxChanged',
  'maxNewAsks',
  'maxPassRateDrop',
  'minPassRate',
  'maxCostIncrease',
  'allowErrors',
];
