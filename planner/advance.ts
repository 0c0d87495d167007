/**
 * The one entry point a run's driver calls: the step it took, what happened, and the planner's
 * next plan. The agentRun workflow and the in-memory harness (testing.ts) both drive a run
 * through `advance`, so the planner's tests exercise the code that runs. A driver only executes
 * steps (activities, timers, waits) and reports back. Workflow-safe, deterministic.
 */
import type { JsonValue } from '../shared/json/json.js';
import type { ModelOutcome } from '../shared/model/model-response.js';
import type { ToolResult } from '../shared/tools/tool-result.js';
import {
  planCancel,
  planClarificationAnswer,
  planClarificationTimeout,
  planResumed,
  planReviewed,
} from './plan-human.js';
import { planModelOutcome } from './plan-model-outcome.js';
import { planBackoffElapsed, planResume } from './plan-resume.js';
import { planReconcile, planReconciled } from './plan-reconcile.js';
import type { ReconcileReport } from '../shared/tools/reconcile.js';
import type { BudgetDecision, Plan, PlanStep, PlannerState } from './plan.js';
import type { ReviewDecision } from '../shared/human-input/review-decision.js';
import { planBudgetDecision } from './plan-budget.js';
import type { Toolbox } from './toolbox.js';
import { assertNever } from '../shared/assert-never.js';

/** What happened while the driver took a step. */
export type Happening =
  /** `call_model`: the model activity's outcome. */
  /** `call`: the model activity's id when the run names its activities (what its live deltas name). */
  | {
      readonly type: 'model_outcome';
      readonly outcome: ModelOutcome;
      readonly call?: string;
      /** The model spec that answered: usage is counted per model. */
      readonly model?: string;
      /** A number in [0, 1) for a provider wait's jitter (the workflow's seeded Math.random); absent: derived from the run key. */
      readonly random?: number;
    }
  /** `execute_tools`: one result per call, in the step's order; `workspace`: the run's snapshot after them, when a workspace call ran. */
  | { readonly type: 'tool_results'; readonly results: readonly ToolResult[]; readonly workspace?: string }
  /** `reconcile`: what each call's tool found out (one report per call). */
  | { readonly type: 'reconciled'; readonly reports: readonly ReconcileReport[] }
  /** `back_off`: the timer fired. */
  | { readonly type: 'backoff_elapsed' }
  /** `await_clarification`: an answer (it wins over a timeout that raced it), or none in time. */
  | { readonly type: 'answered'; readonly answer: JsonValue }
  | { readonly type: 'clarification_timed_out' }
  /** `await_review`: every pending review decided. */
  | { readonly type: 'reviewed'; readonly decisions: Readonly<Record<string, ReviewDecision>> }
  /** `await_budget`: a person extended the budget or stopped the run. */
  | { readonly type: 'budget_decided'; readonly decision: BudgetDecision }
  /** Any step: a cancel (the loop control says when to act on it). */
  | { readonly type: 'cancelled'; readonly reason: string }
  /** Any step: the run was held by a pause this long; the step is taken again. */
  | { readonly type: 'resumed'; readonly pausedMs: number };

export interface AdvanceContext {
  readonly now: number;
  readonly toolbox: Toolbox;
}

/** The next plan after `happening` during `step`. Throws only for a driver bug (a happening the step cannot have). */
export function advance(
  state: PlannerState,
  step: PlanStep,
  happening: Happening,
  { now, toolbox }: AdvanceContext,
): Plan {
  switch (happening.type) {
    case 'cancelled':
      return planCancel(state, happening.reason, now);
    case 'resumed':
      return { state: planResumed(state, happening.pausedMs), step, record: [], notes: [] };
    case 'model_outcome':
      expect(step, 'call_model', happening);
      return planModelOutcome(state, happening.outcome, toolbox, now, {
        ...(happening.model !== undefined && { model: happening.model }),
        ...(happening.random !== undefined && { random: happening.random }),
      });
    case 'tool_results':
      expect(step, 'execute_tools', happening);
      return withWorkspace(
        planReconcile(state, happening.results, now) ?? planResume(state, happening.results, now),
        happening.workspace,
      );
    case 'reconciled':
      expect(step, 'reconcile', happening);
      return planReconciled(state, happening.reports, now);
    case 'backoff_elapsed':
      return planBackoffElapsed(state, expect(step, 'back_off', happening));
    case 'answered':
      expect(step, 'await_clarification', happening);
      return planClarificationAnswer(state, happening.answer, now);
    case 'clarification_timed_out':
      expect(step, 'await_clarification', happening);
      return planClarificationTimeout(state, now);
    case 'reviewed':
      expect(step, 'await_review', happening);
      return planReviewed(state, happening.decisions, now);
    case 'budget_decided':
      return planBudgetDecision(state, expect(step, 'await_budget', happening), happening.decision, now);
    // Stryker disable next-line all: unreachable, tsc proves every variant handled
    default:
      return assertNever(happening, 'happening');
  }
}

/** The plan with the run's workspace at `digest`, when a workspace call moved it. */
function withWorkspace(plan: Plan, digest: string | undefined): Plan {
  if (digest === undefined || plan.state.workspace === digest) return plan;
  return { ...plan, state: { ...plan.state, workspace: digest } };
}

function expect<T extends PlanStep['type']>(
  step: PlanStep,
  type: T,
  happening: Happening,
): Extract<PlanStep, { type: T }> {
  if (step.type !== type)
    throw new Error(`advance: "${happening.type}" cannot happen during "${step.type}" (driver bug)`);
  return step as Extract<PlanStep, { type: T }>;
}
