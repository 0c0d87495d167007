/**
 * What an evaluation reports: per lane, per case, in sum, and the gates that decide its exit code.
 * `summarised` adds the cases' lanes up and checks the eval's gates against them. Node-only
 * (plain data; the writers are in eval-report.ts).
 */
import type { DecisionChange, DecisionTrace } from '../../shared/eval/decision-trace.js';
import type { EvalDefinition, EvalLane, ToolMode } from '../../shared/eval/define-eval.js';
import type { EvalCase } from './eval-cases.js';
import type { Served } from './lane-run.js';
import type { ScoreResult } from './scoring.js';

/** A person the run would have asked, whom the recording does not answer. */
export interface NewAsk {
  readonly kind: 'clarification' | 'review' | 'budget';
  readonly text: string;
}

export interface LaneReport {
  readonly workflowId: string;
  readonly trace: DecisionTrace;
  readonly scores: readonly ScoreResult[];
  readonly pass: boolean;
  /** Why it did not pass, one reason a line. */
  readonly failures: readonly string[];
  readonly newAsks: readonly NewAsk[];
  /** How its tool calls were answered. */
  readonly served: Readonly<Record<Served['how'], number>>;
  /** Calls served by the nearest recorded call (lenient), or refused. */
  readonly mismatches: readonly string[];
  /**
   * Recorded calls whose arguments no longer fit this lane's tool schemas (a candidate that
   * narrowed one): `call <id> of <tool>: <field path>: <message>`.
   */
  readonly misfits: readonly string[];
  /** Taken over from an earlier evaluation of the same code and case (not run again). */
  readonly reused: boolean;
}

export interface CaseReport {
  readonly id: string;
  readonly source: string;
  /** A run still open (a deploy gate's run that would move): compared up to where it waits. */
  readonly open?: true;
  readonly prompt: string;
  readonly error?: EvalCase['error'];
  /** The recorded run's decisions (none for a dataset case). */
  readonly recorded?: DecisionTrace;
  readonly baseline?: LaneReport;
  readonly candidate?: LaneReport;
  /** The baseline lane took the recorded decisions (null for a dataset case). */
  readonly harnessAgrees?: boolean | null;
  /** What the baseline lane did differently from the recording: harness drift. */
  readonly drift?: readonly DecisionChange[];
  /** Every decision the candidate took differently from the baseline. */
  readonly changes?: readonly DecisionChange[];
  readonly pass: boolean;
}

export interface LaneSummary {
  readonly passed: number;
  readonly passRate: number;
  readonly costUsd: number;
  readonly tokens: number;
  readonly durationMs: number;
  readonly peopleAsked: number;
}

export interface GateResult {
  readonly gate: string;
  readonly limit: number | boolean;
  readonly actual: number;
  readonly crossed: boolean;
}

export interface EvalReport {
  readonly agent: string;
  readonly candidate: string;
  readonly tools: ToolMode;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly cases: readonly CaseReport[];
  readonly summary: {
    readonly cases: number;
    readonly errors: number;
    readonly evaluated: number;
    readonly baseline: LaneSummary;
    readonly candidate: LaneSummary;
    /** Share of recorded cases whose baseline lane took exactly the recorded decisions. */
    readonly harnessAgreement: number | null;
    /** Cases where the candidate decided anything differently. */
    readonly changedCases: number;
    /** Cases where the candidate would have asked a person the recording does not answer. */
    readonly newHumanAsks: number;
  };
  readonly gates: readonly GateResult[];
  /** No gate crossed (a case that could not be evaluated crosses `caseErrors`, unless allowed), and at least one case evaluated. */
  readonly passed: boolean;
}

function laneSummary(reports: readonly CaseReport[], lane: EvalLane): LaneSummary {
  const lanes = reports.flatMap((report) => (report[lane] ? [report[lane]] : []));
  const passed = lanes.filter((item) => item.pass).length;
  return {
    passed,
    passRate: lanes.length === 0 ? 0 : passed / lanes.length,
    costUsd: sum(lanes.map((item) => item.trace.usage.costUsd)),
    tokens: sum(lanes.map((item) => item.trace.usage.inputTokens + item.trace.usage.outputTokens)),
    durationMs: sum(lanes.map((item) => item.trace.durationMs)),
    peopleAsked: sum(lanes.map((item) => item.trace.clarifications + item.trace.reviews + item.trace.budgets)),
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

export function summarised(
  definition: EvalDefinition,
  mode: ToolMode,
  reports: CaseReport[],
  started: number,
  /** Cases that could not be evaluated do not cross a gate (`--allow-errors`). */
  allowErrors = false,
): EvalReport {
  const evaluated = reports.filter((report) => !report.error);
  const recorded = evaluated.filter((report) => report.harnessAgrees !== null);
  const baseline = laneSummary(evaluated, 'baseline');
  const candidate = laneSummary(evaluated, 'candidate');
  const newHumanAsks = evaluated.filter((report) => (report.candidate?.newAsks.length ?? 0) > 0).length;
  const gates = definition.gates ?? {};
  const results: GateResult[] = [];
  const drop = baseline.passRate - candidate.passRate;
  const maxDrop = gates.maxPassRateDrop ?? 0;
  results.push({ gate: 'maxPassRateDrop', limit: maxDrop, actual: round(drop), crossed: drop > maxDrop + 1e-9 });
  if (gates.minPassRate !== undefined)
    results.push({
      gate: 'minPassRate',
      limit: gates.minPassRate,
      actual: round(candidate.passRate),
      crossed: candidate.passRate < gates.minPassRate,
    });
  if (gates.maxCostIncrease !== undefined) {
    const rise =
      baseline.costUsd > 0
        ? (candidate.costUsd - baseline.costUsd) / baseline.costUsd
        : candidate.costUsd > 0
          ? Infinity
          : 0;
    results.push({
      gate: 'maxCostIncrease',
      limit: gates.maxCostIncrease,
      actual: round(rise),
      crossed: rise > gates.maxCostIncrease,
    });
  }
  const errors = reports.length - evaluated.length;
  if (!allowErrors) results.push({ gate: 'caseErrors', limit: 0, actual: errors, crossed: errors > 0 });
  if (gates.failOnNewHumanAsk ?? true)
    results.push({ gate: 'failOnNewHumanAsk', limit: true, actual: newHumanAsks, crossed: newHumanAsks > 0 });
  return {
    agent: definition.agent.name,
    candidate: definition.candidate.name ?? 'candidate',
    tools: mode,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    cases: reports,
    summary: {
      cases: reports.length,
      errors,
      evaluated: evaluated.length,
      baseline,
      candidate,
      harnessAgreement:
        recorded.length === 0 ? null : recorded.filter((report) => report.harnessAgrees).length / recorded.length,
      changedCases: evaluated.filter((report) => (report.changes?.length ?? 0) > 0).length,
      newHumanAsks,
    },
    gates: results,
    passed: evaluated.length > 0 && results.every((gate) => !gate.crossed),
  };
}

function round(value: number): number {
  return Number.isFinite(value) ? Math.round(value * 1e4) / 1e4 : value;
}
