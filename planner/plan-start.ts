/**
 * The first plan of a run: ask the model. Workflow-safe, deterministic.
 */
import { callModel } from './plan-common.js';
import type { Plan, PlannerState } from './plan.js';
import type { AgentPolicy } from './policy.js';

export interface PlanStartInput {
  readonly policy: AgentPolicy;
  /** The agent's tool names. */
  readonly tools: readonly string[];
  readonly now: number;
  /** The run's workflow id: `once` calls' idempotency keys start with it. */
  readonly runKey?: string;
}

export function initialState(input: PlanStartInput): PlannerState {
  return {
    policy: input.policy,
    tools: input.tools,
    phase: 'model',
    turn: 0,
    toolCallsUsed: 0,
    failedBatchStreak: 0,
    modelRetries: 0,
    nudges: 0,
    startedAt: input.now,
    humanWaitMs: 0,
    waitingSince: null,
    attempts: {},
    failureStreaks: {},
    blocked: {},
    repairStreaks: {},
    disabled: {},
    batch: null,
    clarification: null,
    reviews: [],
    waitingRuns: [],
    lastToolChoice: 'auto',
    finalizing: null,
    lastErrors: [],
    questions: 0,
    ...(input.runKey !== undefined && { runKey: input.runKey }),
  };
}

export function planStart(input: PlanStartInput): Plan {
  return callModel(initialState(input), 'auto');
}
