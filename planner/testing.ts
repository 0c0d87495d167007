/**
 * Test support for the planner: builders for tool results, checked calls and model outcomes, and
 * `drive`, an in-memory stand-in for the agentRun workflow loop (workflows/agent-run.ts) that runs
 * a scripted model and scripted tools through the planner. Used only by `planner/*.test.ts`; not
 * exported from the planner's index. Deterministic; imports nothing from Temporal or Node.
 */
import { FAILURES, type ToolErrorCode } from '../shared/failure-taxonomy.js';
import { argsHash } from '../shared/hash.js';
import type { JsonValue } from '../shared/json.js';
import type { ModelOutcome, RawToolCall } from '../shared/model-response.js';
import type { RetryHint } from '../shared/retry-hint.js';
import type { SideEffects } from '../shared/define-tool.js';
import type { ToolCall } from '../shared/tool-call.js';
import { toolError } from '../shared/tool-error.js';
import { NO_TELEMETRY, type ToolFailureResult, type ToolResult, type ToolSuccess, type ToolValidationFailure } from '../shared/tool-result.js';
import type { CheckedCall, PendingClarification, PendingReview, Plan, PlanStep, PlannerState, ReviewDecision } from './plan.js';
import { planClarificationAnswer, planClarificationTimeout, planReviewed } from './plan-human.js';
import { planModelOutcome } from './plan-model-outcome.js';
import { planResume } from './plan-resume.js';
import { planStart } from './plan-start.js';
import { planToolCalls } from './plan-tool-calls.js';
import { resolvePolicy, type PolicyOverrides } from './policy.js';

export const TOOLS = ['search_orders', 'lookup', 'refund'] as const;

export type Step<T extends PlanStep['type']> = Extract<PlanStep, { type: T }>;

/** The step of `plan`, asserted to be of type `type` (throws a readable error otherwise). */
export function stepOf<T extends PlanStep['type']>(plan: Plan, type: T): Step<T> {
  if (plan.step.type !== type) throw new Error(`expected step ${type}, got ${JSON.stringify(plan.step)}`);
  return plan.step as Step<T>;
}

// ── Tool calls and results ──────────────────────────────────────────────────────────────────

export function toolCall(name: string, args: JsonValue = {}, toolCallId = '1.1'): ToolCall {
  return { toolCallId, name, args };
}

/** The identity budgets and loops count by, as the workflow computes it. */
export function keyOf(call: ToolCall): string {
  return `${call.name}#${argsHash(call.args)}`;
}

export function checked(call: ToolCall, options: { sideEffects?: SideEffects; needsApproval?: boolean; failure?: ToolResult } = {}): CheckedCall {
  return {
    call,
    key: keyOf(call),
    sideEffects: options.sideEffects ?? 'none',
    needsApproval: options.needsApproval ?? false,
    ...(options.failure ? { failure: options.failure } : {}),
  };
}

export function ok(call: ToolCall, result: JsonValue = { done: true }): ToolSuccess {
  return { status: 'ok', name: call.name, toolCallId: call.toolCallId, result, telemetry: NO_TELEMETRY };
}

/** A failure with `code`, its taxonomy reason and any hint fields; `partialResult` for partial data. */
export function failed(call: ToolCall, code: ToolErrorCode, hint: Partial<RetryHint> = {}, partialResult?: JsonValue): ToolFailureResult {
  return {
    status: 'error',
    name: call.name,
    toolCallId: call.toolCallId,
    error: toolError(code, `${call.name} failed: ${code}`),
    retryHint: { reason: FAILURES[code].reason, tool: call.name, ...hint },
    ...(partialResult === undefined ? {} : { partialResult }),
    telemetry: { durationMs: 5, attempt: 1 },
  };
}

export function validatorFailed(call: ToolCall, feedback = 'An ISBN must be 13 digits; only 10 are present.'): ToolValidationFailure {
  return { status: 'validator_failed', name: call.name, toolCallId: call.toolCallId, validator: 'isbn', feedback, telemetry: NO_TELEMETRY };
}

// ── Model outcomes ──────────────────────────────────────────────────────────────────────────

export function rawCall(name: string, args: JsonValue = {}): RawToolCall {
  return { name, arguments: JSON.stringify(args) };
}

export function toolCallsReply(calls: readonly RawToolCall[], text = ''): ModelOutcome {
  return { status: 'ok', response: { text, toolCalls: calls, finishReason: 'tool_calls' } };
}

export function textReply(text: string): ModelOutcome {
  return { status: 'ok', response: { text, toolCalls: [], finishReason: 'stop' } };
}

export const NO_RESPONSE: ModelOutcome = { status: 'ok', response: null };
export const INTERRUPTED: ModelOutcome = { status: 'ok', response: { text: 'Partial ans', toolCalls: [], finishReason: 'other', interrupted: true } };

export function modelError(code: ToolErrorCode, retryAfterMs?: number): ModelOutcome {
  return { status: 'error', error: toolError(code, `model call failed: ${code}`), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
}

// ── Single planner moves ────────────────────────────────────────────────────────────────────

export function start(policy: PolicyOverrides = {}, now = 0, tools: readonly string[] = TOOLS): Plan {
  return planStart({ policy: resolvePolicy(policy), tools, now });
}

/** A model turn that makes `calls`: the response, then admission (planToolCalls). */
export function turnWith(state: PlannerState, calls: readonly CheckedCall[], now = 0): Plan {
  const response = planModelOutcome(state, toolCallsReply(calls.map((c) => rawCall(c.call.name, c.call.args))));
  stepOf(response, 'check_tool_calls');
  return planToolCalls(response.state, calls, now);
}

/** A model turn whose calls run once and return `results` (by call order among executed calls). */
export function turnResulting(state: PlannerState, calls: readonly CheckedCall[], answer: (call: ToolCall) => ToolResult, now = 0): Plan {
  const admitted = turnWith(state, calls, now);
  if (admitted.step.type !== 'execute_tools') return admitted;
  return planResume(admitted.state, admitted.step.calls.map(answer), now);
}

// ── A whole run in memory ───────────────────────────────────────────────────────────────────

export const TIMEOUT = Symbol('clarification timeout');

export interface World {
  readonly policy?: PolicyOverrides;
  readonly tools?: readonly string[];
  /** The model's outcomes in order; the driver fails loudly when the script runs out. */
  readonly model: readonly ModelOutcome[];
  /** One run of a tool; `run` counts runs of this exact (name, args) from 1. */
  readonly tool?: (call: ToolCall, run: number) => ToolResult;
  readonly sideEffects?: Readonly<Record<string, SideEffects>>;
  readonly needsApproval?: (call: ToolCall) => boolean;
  /** A failure decided in the workflow (bad arguments): the call does not run. */
  readonly precheck?: (call: ToolCall) => ToolResult | undefined;
  /** The human's answer; undefined stops the drive at the question. */
  readonly answer?: (clarification: PendingClarification) => JsonValue | typeof TIMEOUT | undefined;
  readonly review?: (reviews: readonly PendingReview[]) => Record<string, ReviewDecision> | undefined;
  /** Workflow time each kind of step takes. */
  readonly ms?: { readonly model?: number; readonly tool?: number; readonly human?: number };
  /** Pass every state through JSON (history, continue-as-new) before the next planner call. */
  readonly roundTrip?: boolean;
}

export interface Trace {
  readonly plans: readonly Plan[];
  readonly modelCalls: readonly Step<'call_model'>[];
  readonly executed: readonly ToolCall[];
  readonly records: readonly ToolResult[];
  readonly notes: readonly string[];
  readonly last: Plan;
  readonly now: number;
}

/** Runs `world` through the planner as agentRun would, until finish or an unanswered human wait. */
export function drive(world: World, maxPlans = 500): Trace {
  const plans: Plan[] = [];
  const modelCalls: Step<'call_model'>[] = [];
  const executed: ToolCall[] = [];
  const runs: Record<string, number> = {};
  const ms = { model: 1_000, tool: 500, human: 60_000, ...world.ms };
  let now = 0;
  let modelIndex = 0;
  let plan = start(world.policy, now, world.tools);
  const trace = (): Trace => ({ plans, modelCalls, executed, records: plans.flatMap((p) => p.record), notes: plans.flatMap((p) => p.notes), last: plan, now });

  while (plans.length < maxPlans) {
    plans.push(plan);
    const state: PlannerState = world.roundTrip ? JSON.parse(JSON.stringify(plan.state)) : plan.state;
    const step = plan.step;
    switch (step.type) {
      case 'finish':
        return trace();
      case 'call_model': {
        modelCalls.push(step);
        const outcome = world.model[modelIndex++];
        if (!outcome) throw new Error(`model script exhausted after ${world.model.length} outcome(s)`);
        now += ms.model;
        plan = planModelOutcome(state, outcome);
        break;
      }
      case 'check_tool_calls': {
        const calls = step.calls.map((raw, i) => {
          const call = toolCall(raw.name, JSON.parse(raw.arguments) as JsonValue, `${state.turn}.${i + 1}`);
          const failure = world.precheck?.(call);
          const approval = world.needsApproval?.(call) ?? false;
          return checked(call, { sideEffects: world.sideEffects?.[call.name] ?? 'none', needsApproval: approval, ...(failure ? { failure } : {}) });
        });
        plan = planToolCalls(state, calls, now);
        break;
      }
      case 'execute_tools': {
        now += ms.tool;
        const results = step.calls.map((call) => {
          if (!world.tool) throw new Error(`no tools scripted, but ${call.name} was run`);
          executed.push(call);
          const key = keyOf(call);
          runs[key] = (runs[key] ?? 0) + 1;
          return world.tool(call, runs[key]);
        });
        plan = planResume(state, results, now);
        break;
      }
      case 'back_off':
        now += step.delayMs;
        plan = { state: { ...state, phase: step.next.type === 'call_model' ? 'model' : 'tools' }, step: step.next, record: [], notes: [] };
        break;
      case 'await_clarification': {
        const reply = world.answer?.(step.clarification);
        if (reply === undefined) return trace();
        now += ms.human;
        plan = reply === TIMEOUT ? planClarificationTimeout(state, now) : planClarificationAnswer(state, reply, now);
        break;
      }
      case 'await_review': {
        const decisions = world.review?.(step.reviews);
        if (decisions === undefined) return trace();
        now += ms.human;
        plan = planReviewed(state, decisions, now);
        break;
      }
    }
  }
  throw new Error(`no finish after ${maxPlans} plans`);
}
