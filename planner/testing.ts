/**
 * Test support for the planner: builders for tool results, checked calls and model outcomes, and
 * `drive`, an in-memory driver of a whole run. It drives the planner exactly as the agentRun
 * workflow does — `loopControl` before each step, `advance` after it, `transcriptEntries` to
 * record — with a scripted model, scripted tools and scripted humans in place of activities,
 * timers and Updates. Used only by `planner/*.test.ts`; not exported from the planner's index.
 * Deterministic; imports nothing from Temporal or Node.
 */
import type { ToolErrorCode } from '../shared/failures/failure-taxonomy.js';
import { argsHash } from '../shared/identity/hash.js';
import { callKey } from '../shared/identity/call-key.js';
import type { JsonValue } from '../shared/json/json.js';
import type { ModelFailure, ModelOutcome, RawToolCall } from '../shared/model/model-response.js';
import type { RetryHint } from '../shared/failures/retry-hint.js';
import type { SideEffects } from '../shared/tools/define-tool.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { ReconcileCall, ReconcileReport } from '../shared/tools/reconcile.js';
import { toolError } from '../shared/failures/tool-error.js';
import {
  errorResult,
  NO_TELEMETRY,
  type ToolFailureResult,
  type ToolResult,
  type ToolSuccess,
  type ToolValidationFailure,
} from '../shared/tools/tool-result.js';
import type {
  BudgetDecision,
  BudgetRequest,
  CheckedCall,
  PendingClarification,
  PendingReview,
  Plan,
  PlanStep,
  PlannerState,
} from './plan.js';
import type { ReviewDecision } from '../shared/human-input/review-decision.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { Happening } from './advance.js';
import { assertNever } from '../shared/assert-never.js';
import { runLoopInMemory, STOP_LOOP, type LoopDriver, type LoopMoves } from './run-loop.js';
import { planModelOutcome } from './plan-model-outcome.js';
import { planResume } from './plan-resume.js';
import { planStart } from './plan-start.js';
import { resolvePolicy, type PolicyOverrides } from './policy.js';
import { checkedCall, type Toolbox } from './toolbox.js';
import { transcriptEntries } from './transcript-entries.js';

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
  return callKey(call.name, argsHash(call.args));
}

export function checked(
  call: ToolCall,
  options: { sideEffects?: SideEffects; needsApproval?: boolean; failure?: ToolResult } = {},
): CheckedCall {
  const facts = options.failure
    ? { failure: options.failure }
    : { sideEffects: options.sideEffects ?? 'none', needsApproval: options.needsApproval ?? false };
  return checkedCall(call, argsHash(call.args), facts);
}

export function ok(call: ToolCall, result: JsonValue = { done: true }): ToolSuccess {
  return { status: 'ok', name: call.name, toolCallId: call.toolCallId, result, telemetry: NO_TELEMETRY };
}

/** A failure with `code`, its taxonomy reason and any hint fields; `partialResult` for partial data. */
export function failed(
  call: ToolCall,
  code: ToolErrorCode,
  hint: Partial<RetryHint> = {},
  partialResult?: JsonValue,
): ToolFailureResult {
  return errorResult(call, toolError(code, `${call.name} failed: ${code}`), hint, {
    partialResult,
    telemetry: { durationMs: 5, attempt: 1 },
  });
}

export function validatorFailed(
  call: ToolCall,
  feedback = 'An ISBN must be 13 digits; only 10 are present.',
): ToolValidationFailure {
  return {
    status: 'validator_failed',
    name: call.name,
    toolCallId: call.toolCallId,
    validator: 'isbn',
    feedback,
    telemetry: NO_TELEMETRY,
  };
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
export const INTERRUPTED: ModelOutcome = {
  status: 'ok',
  response: { text: 'Partial ans', toolCalls: [], finishReason: 'other', interrupted: true },
};

export function modelError(code: ToolErrorCode, retryAfterMs?: number): ModelOutcome {
  return {
    status: 'error',
    error: toolError(code, `model call failed: ${code}`),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

/** A provider failure of `kind` as the model activity reports it (429 → rate_limited, 404 → misconfigured…). */
export function modelFailure(kind: ModelFailure, retryAfterMs?: number): ModelOutcome {
  const code: ToolErrorCode =
    kind === 'misconfigured' ? 'internal_error' : kind === 'unavailable' ? 'timeout' : 'rate_limited';
  return {
    status: 'error',
    error: toolError(code, `model call failed: ${kind}`),
    failure: kind,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

/** A text reply that reports usage. */
export function textWithUsage(text: string, inputTokens: number, outputTokens: number, costUsd?: number): ModelOutcome {
  return {
    status: 'ok',
    response: {
      text,
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens, outputTokens, ...(costUsd !== undefined && { costUsd }) },
    },
  };
}

// ── Single planner moves ────────────────────────────────────────────────────────────────────

export function start(policy: PolicyOverrides = {}, now = 0, tools: readonly string[] = TOOLS): Plan {
  return planStart({ policy: resolvePolicy(policy), tools, now });
}

/** A toolbox that answers the raw calls of one reply with `calls`, in order. */
export function fixedToolbox(calls: readonly CheckedCall[]): Toolbox {
  let next = 0;
  return {
    check(raw) {
      const c = calls[next++];
      if (!c || c.call.name !== raw.name) throw new Error(`fixedToolbox: unexpected call ${raw.name}`);
      return c;
    },
  };
}

/** A model turn that makes `calls` (already checked): the response, admitted by the planner. */
export function turnWith(state: PlannerState, calls: readonly CheckedCall[], now = 0): Plan {
  return planModelOutcome(
    state,
    toolCallsReply(calls.map((c) => rawCall(c.call.name, c.call.args))),
    fixedToolbox(calls),
    now,
  );
}

/** A model turn whose calls run once and return `results` (by call order among executed calls). */
export function turnResulting(
  state: PlannerState,
  calls: readonly CheckedCall[],
  answer: (call: ToolCall) => ToolResult,
  now = 0,
): Plan {
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
  /** Every `once` tool has a `reconcile`, and this is what it finds. */
  readonly reconcile?: (call: ReconcileCall) => ReconcileReport;
  readonly needsApproval?: (call: ToolCall) => boolean;
  /** A failure decided in the workflow (bad arguments): the call does not run. */
  readonly precheck?: (call: ToolCall) => ToolResult | undefined;
  /** The human's answer; undefined stops the drive at the question. */
  readonly answer?: (clarification: PendingClarification) => JsonValue | typeof TIMEOUT | undefined;
  readonly review?: (reviews: readonly PendingReview[]) => Record<string, ReviewDecision> | undefined;
  /** A person's decision on a budget request; undefined stops the drive there. */
  readonly budget?: (request: BudgetRequest) => BudgetDecision | undefined;
  /** The random number each provider wait gets (the workflow's Math.random); absent: derived from the run key. */
  readonly random?: () => number;
  /** Signals arriving before the step of plan number `atPlan` (0-based) is taken. */
  readonly signals?: readonly { readonly atPlan: number; readonly cancel?: string; readonly pauseMs?: number }[];
  /** Hand over (continue as new) after this many turns of a run, as AgentRunInput allows. */
  readonly continueAsNewAfterTurns?: number;
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
  /** The model's transcript as the run recorded it (without the system and user prompts). */
  readonly transcript: readonly TranscriptMessage[];
  /** How many times the run handed over to a new run. */
  readonly handOvers: number;
  readonly last: Plan;
  readonly now: number;
}

/** The harness's tools: arguments parsed as JSON, then the world's precheck, approval and side effects. */
function worldToolbox(world: World): Toolbox {
  return {
    check(raw, toolCallId) {
      const args = JSON.parse(raw.arguments) as JsonValue;
      const call = toolCall(raw.name, args, toolCallId);
      const failure = world.precheck?.(call);
      if (failure) return checkedCall(call, argsHash(args), { failure });
      const sideEffects = world.sideEffects?.[call.name] ?? 'none';
      return checkedCall(call, argsHash(args), {
        sideEffects,
        needsApproval: world.needsApproval?.(call) ?? false,
        ...(world.reconcile && { reconcile: true as const }),
      });
    },
  };
}

/** A toolbox where every call passes: parsed, no side effects, no review. */
export const PLAIN_TOOLS: Toolbox = worldToolbox({ model: [] });

/** The plan after a model outcome, with every call passing its checks. */
export function afterModel(state: PlannerState, outcome: ModelOutcome, now = 0): Plan {
  return planModelOutcome(state, outcome, PLAIN_TOOLS, now);
}

/** Runs `world` as agentRun would (the same loop: run-loop.ts), until finish or an unanswered human wait. */
export function drive(world: World, maxPlans = 500): Trace {
  const plans: Plan[] = [];
  const modelCalls: Step<'call_model'>[] = [];
  const executed: ToolCall[] = [];
  const transcript: TranscriptMessage[] = [];
  const runs: Record<string, number> = {};
  const ms = { model: 1_000, tool: 500, human: 60_000, ...world.ms };
  const toolbox = worldToolbox(world);
  let now = 0;
  let modelIndex = 0;
  let handOvers = 0;
  let runStartTurn = 0;
  let cancelReason: string | null = null;
  // The pause that arrives before the step of the plan last recorded.
  let pausedMs = 0;

  const driver: LoopDriver = {
    record(plan) {
      if (plans.length >= maxPlans) throw new Error(`no finish after ${maxPlans} plans`);
      plans.push(plan);
      transcript.push(...transcriptEntries(plan, transcript));
      pausedMs = 0;
      for (const signal of world.signals ?? []) {
        if (signal.atPlan !== plans.length - 1) continue;
        cancelReason ??= signal.cancel ?? null;
        pausedMs += signal.pauseMs ?? 0;
      }
      return world.roundTrip ? { ...plan, state: JSON.parse(JSON.stringify(plan.state)) as PlannerState } : plan;
    },
    signals: (state) => ({
      cancelReason,
      paused: pausedMs > 0,
      continueAsNewSuggested: false,
      turnsThisRun: state.turn - runStartTurn,
      ...(world.continueAsNewAfterTurns !== undefined && { continueAsNewAfterTurns: world.continueAsNewAfterTurns }),
    }),
    context: () => ({ now, toolbox }),
  };
  const moves: LoopMoves = {
    hold: () => ((now += pausedMs), pausedMs),
    hand_over: ({ state, step }) => {
      // A new run of the chain starts from the carried state and step, through JSON.
      handOvers++;
      runStartTurn = state.turn;
      return {
        state: JSON.parse(JSON.stringify(state)),
        step: JSON.parse(JSON.stringify(step)),
        record: [],
        notes: [],
      };
    },
    take_step: ({ step }) => take(step) ?? STOP_LOOP,
  };
  runLoopInMemory(start(world.policy, now, world.tools), driver, moves);
  return {
    plans,
    modelCalls,
    executed,
    transcript,
    handOvers,
    records: plans.flatMap((p) => p.record),
    notes: plans.flatMap((p) => p.notes),
    last: plans.at(-1)!,
    now,
  };

  /** What the world does for one step; undefined when a human does not answer. */
  function take(step: PlanStep): Happening | undefined {
    switch (step.type) {
      case 'call_model': {
        modelCalls.push(step);
        const outcome = world.model[modelIndex++];
        if (!outcome) throw new Error(`model script exhausted after ${world.model.length} outcome(s)`);
        now += ms.model;
        return { type: 'model_outcome', outcome, model: 'test:model', ...(world.random && { random: world.random() }) };
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
        return { type: 'tool_results', results };
      }
      case 'reconcile':
        now += ms.tool;
        if (!world.reconcile) throw new Error('no reconcile scripted, but the planner asked for one');
        return { type: 'reconciled', reports: step.calls.map(world.reconcile) };
      case 'back_off':
        now += step.delayMs;
        return { type: 'backoff_elapsed' };
      case 'await_clarification': {
        const reply = world.answer?.(step.clarification);
        if (reply === undefined) return undefined;
        now += ms.human;
        return reply === TIMEOUT ? { type: 'clarification_timed_out' } : { type: 'answered', answer: reply };
      }
      case 'await_review': {
        const decisions = world.review?.(step.reviews);
        if (decisions === undefined) return undefined;
        now += ms.human;
        return { type: 'reviewed', decisions };
      }
      case 'await_budget': {
        const decision = world.budget?.(step.request);
        if (decision === undefined) return undefined;
        now += ms.human;
        return { type: 'budget_decided', decision };
      }
      case 'finish':
        throw new Error('finish is handled by the loop control');
      default:
        return assertNever(step, 'step');
    }
  }
}
