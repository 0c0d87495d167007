/**
 * A run's token and cost budget (policy `budget`): how much is used and allowed, when the model is
 * asked for its final answer (near a limit), and what happens at a limit: the run ends
 * `budget_exhausted`, or a person is asked to extend it (`await_budget`) and decides. Usage comes
 * with model replies (provider tokens, the worker's prices); extensions are added to the limits.
 * Workflow-safe, deterministic.
 */
import { totalTokens } from '../shared/model/model-usage.js';
import { tenantWindowText, type TenantWindowSpent } from '../shared/model/model-response.js';
import type { BudgetDecision, BudgetRequest, Plan, PlanStep, PlannerState } from './plan.js';

/** The limits in force: the policy's plus what people added; null for none. */
export function budgetLimits(state: PlannerState): {
  readonly maxTokens: number | null;
  readonly maxCostUsd: number | null;
} {
  const { maxTokens, maxCostUsd } = state.policy.budget;
  const extra = state.budgetExtra;
  return {
    maxTokens: maxTokens === null ? null : maxTokens + (extra?.tokens ?? 0),
    maxCostUsd: maxCostUsd === null ? null : Math.round((maxCostUsd + (extra?.costUsd ?? 0)) * 1e9) / 1e9,
  };
}

function used(state: PlannerState): { readonly tokens: number; readonly costUsd: number } {
  return { tokens: totalTokens(state.usage), costUsd: state.usage?.costUsd ?? 0 };
}

/** Which limit is used up, if one is. */
export function budgetExhausted(state: PlannerState): 'tokens' | 'cost' | null {
  const limits = budgetLimits(state);
  const { tokens, costUsd } = used(state);
  if (limits.maxTokens !== null && tokens >= limits.maxTokens) return 'tokens';
  if (limits.maxCostUsd !== null && costUsd >= limits.maxCostUsd) return 'cost';
  return null;
}

/** The reason for a wrap-up turn when usage has reached `wrapUpAt` of a limit, else null. */
export function budgetNear(state: PlannerState): string | null {
  if (state.tenantNear) return state.tenantNear;
  const limits = budgetLimits(state);
  const { tokens, costUsd } = used(state);
  const at = state.policy.budget.wrapUpAt;
  if (limits.maxTokens !== null && tokens >= at * limits.maxTokens)
    return `token budget nearly used (${tokens} of ${limits.maxTokens} tokens)`;
  if (limits.maxCostUsd !== null && costUsd >= at * limits.maxCostUsd)
    return `cost budget nearly used (${costUsd} of ${limits.maxCostUsd})`;
  return null;
}

/** What a run at its budget says. */
function exhaustedText(state: PlannerState, limit: 'tokens' | 'cost'): string {
  const limits = budgetLimits(state);
  const { tokens, costUsd } = used(state);
  return limit === 'tokens'
    ? `its token budget is used up (${tokens} of ${limits.maxTokens} tokens)`
    : `its cost budget is used up (${costUsd} of ${limits.maxCostUsd})`;
}

/**
 * `plan` (the planner's decision after a model reply) checked against the budget. A finish stays a
 * finish (the model has answered). At a limit the run ends `budget_exhausted`, or waits for a person
 * (`onExhausted: 'ask'`) with `plan`'s step to take if they extend it. Near a limit, a next model turn
 * becomes the wrap-up turn (a tool batch runs first: its results must be answered; the wrap-up
 * comes after it, complete-batch.ts).
 */
export function checkBudget(plan: Plan, now: number): Plan {
  const { state, step } = plan;
  if (step.type === 'finish') return plan;
  const limit = budgetExhausted(state);
  if (limit) {
    if (state.policy.budget.onExhausted === 'ask') return { ...plan, ...askForBudget(state, limit, step, now) };
    const message = `The run ended: ${exhaustedText(state, limit)}.`;
    return {
      ...plan,
      state: { ...state, phase: 'done' },
      step: {
        type: 'finish',
        answer: message,
        reason: `budget exhausted: ${limit}`,
        end: { code: 'budget_exhausted', message, fail: false },
      },
    };
  }
  return plan;
}

function askForBudget(
  state: PlannerState,
  limit: 'tokens' | 'cost',
  next: PlanStep,
  now: number,
  tenantWindow?: TenantWindowSpent,
): Pick<Plan, 'state' | 'step'> {
  const count = (state.budgetRequests ?? 0) + 1;
  const limits = budgetLimits(state);
  const { tokens, costUsd } = used(state);
  const request: BudgetRequest = {
    id: `b${count}`,
    limit,
    ...limits,
    usedTokens: tokens,
    usedCostUsd: costUsd,
    ...(tenantWindow && { tenantWindow }),
  };
  return {
    state: { ...state, phase: 'awaiting_budget', budgetRequests: count, waitingSince: state.waitingSince ?? now },
    step: { type: 'await_budget', request, next },
  };
}

/**
 * The run's tenant has spent a window of its budget (the model call was not sent): the run ends
 * `budget_exhausted` naming the window, or, where the policy's `onExhausted` is 'ask', a person is
 * asked; extending gives this run an allowance past the window (`tenantAllowance`), not the tenant.
 */
export function tenantWindowSpent(
  state: PlannerState,
  spent: TenantWindowSpent | undefined,
  said: string,
  next: PlanStep,
  now: number,
): Plan {
  if (spent && state.policy.budget.onExhausted === 'ask')
    return { ...askForBudget(state, spent.limit, next, now, spent), record: [], notes: [] };
  const why = spent
    ? tenantWindowText(spent)
    : said
        .replace(/^The call to .*? was not sent: /, '')
        .replace(/\.$/, '')
        .slice(0, 300);
  const message = `The run ended: ${why}.`;
  return {
    state: { ...state, phase: 'done' },
    step: {
      type: 'finish',
      answer: message,
      reason: 'budget exhausted: tenant',
      end: { code: 'budget_exhausted', message, fail: false },
    },
    record: [],
    notes: [],
  };
}

/** What the run may still use past its tenant's spent window, for its next model request; undefined for none. */
export function tenantAllowanceLeft(
  state: PlannerState,
): { readonly tokens: number; readonly costUsd: number } | undefined {
  const allowance = state.tenantAllowance;
  if (!allowance) return undefined;
  const { tokens, costUsd } = used(state);
  const left = {
    tokens: Math.max(0, allowance.tokens - (tokens - allowance.fromTokens)),
    costUsd: Math.max(0, Math.round((allowance.costUsd - (costUsd - allowance.fromCostUsd)) * 1e9) / 1e9),
  };
  return left.tokens > 0 || left.costUsd > 0 ? left : undefined;
}

/**
 * Every amount an extension adds, none optional: a field added to the budget decision
 * (shared/human-input/budget-decision.ts) fails `tsc` here until the planner applies it.
 */
type Extension = { readonly [K in Exclude<keyof Extract<BudgetDecision, { type: 'extend' }>, 'type'>]-?: number };

/** A person's decision on a budget request: extend (then the deferred step, or ask again if still short) or stop. */
export function planBudgetDecision(
  state: PlannerState,
  step: Extract<PlanStep, { type: 'await_budget' }>,
  decision: BudgetDecision,
  now: number,
): Plan {
  const waited =
    state.waitingSince === null
      ? state
      : { ...state, humanWaitMs: state.humanWaitMs + Math.max(0, now - state.waitingSince), waitingSince: null };
  const spent = step.request.tenantWindow;
  if (decision.type === 'stop') {
    const message = `The run ended: ${spent ? tenantWindowText(spent) : exhaustedText(waited, step.request.limit)}, and it was not extended${decision.reason ? ` (${decision.reason})` : ''}.`;
    return {
      state: { ...waited, phase: 'done' },
      step: {
        type: 'finish',
        answer: message,
        reason: `budget exhausted: ${step.request.limit}`,
        end: { code: 'budget_exhausted', message, fail: false },
      },
      record: [],
      notes: [],
    };
  }
  if (spent) {
    // An allowance for this run past the tenant's window, from what it has used now; the run's own budget is unchanged.
    const { tokens, costUsd } = used(waited);
    const adds: Extension = { tokens: decision.tokens ?? 0, costUsd: decision.costUsd ?? 0 };
    const allowed: PlannerState = {
      ...waited,
      tenantAllowance: { ...adds, fromTokens: tokens, fromCostUsd: costUsd },
    };
    return { state: resumed(allowed, step.next, now), step: step.next, record: [], notes: [] };
  }
  const extra: Extension = {
    tokens: (waited.budgetExtra?.tokens ?? 0) + (decision.tokens ?? 0),
    costUsd: Math.round(((waited.budgetExtra?.costUsd ?? 0) + (decision.costUsd ?? 0)) * 1e9) / 1e9,
  };
  const extended: PlannerState = { ...waited, budgetExtra: extra };
  const still = budgetExhausted(extended);
  if (still) return { ...askForBudget(extended, still, step.next, now), record: [], notes: [] };
  return { state: resumed(extended, step.next, now), step: step.next, record: [], notes: [] };
}

/**
 * The state that takes `next`, deferred behind a budget request: its phase, and for a person's
 * review or question (held in the state since before the request) a wait that begins now.
 */
function resumed(state: PlannerState, next: PlanStep, now: number): PlannerState {
  switch (next.type) {
    case 'call_model':
      return { ...state, phase: state.finalizing ? 'finalizing' : 'model' };
    case 'execute_tools':
      return { ...state, phase: 'tools' };
    case 'await_review':
      return { ...state, phase: 'awaiting_review', waitingSince: now };
    case 'await_clarification':
      return { ...state, phase: 'awaiting_clarification', waitingSince: now };
    default:
      return state;
  }
}
