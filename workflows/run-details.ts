/**
 * What the Temporal UI and the `state` Query show of a run: the phase, the pending question or
 * review, the last error. Deterministic.
 */
import { enabledTools, type PlannerState } from '../planner/index.js';
import type { PlanStep } from '../planner/index.js';
import { allowedDecisions } from '../shared/review-config.js';
import type { RunState, StepLogEntry } from './messages.js';
import type { ChildRuns } from './child-runs.js';

/** The planner's step in a few words: what the workflow is about to do, and why. */
export function describeStep(step: PlanStep, state: PlannerState): Pick<StepLogEntry, 'action' | 'detail'> {
  switch (step.type) {
    case 'call_model':
      if (state.finalizing) return { action: 'final', detail: `final model turn, no tools: ${state.finalizing}` };
      if (typeof step.toolChoice === 'object') return { action: 'repair', detail: `model repairs the call, restricted to ${step.toolChoice.tool}` };
      return { action: 'model', detail: `model turn with ${step.tools.length} tool(s)` };
    case 'execute_tools':
      return { action: 'run_tools', detail: step.calls.map((c) => c.name).join(', ') };
    case 'back_off':
      return { action: 'back_off', detail: `${step.reason}; retry in ${step.delayMs} ms without a model turn` };
    case 'await_clarification':
      return { action: 'clarify', detail: step.clarification.question };
    case 'await_review':
      return { action: 'review', detail: step.reviews.map((r) => `${r.name} ${JSON.stringify(r.args)}`).join('; ') };
    case 'finish':
      return { action: 'finish', detail: step.reason ?? 'the model answered' };
  }
}

export function runState(input: {
  agent: string;
  state: PlannerState;
  paused: boolean;
  finalAnswer: string | null;
  transcriptLength: number;
  generation: number;
  continuingAsNew: boolean;
  steps: readonly StepLogEntry[];
  /** Child runs in progress, and what they wait on (child-runs.ts). */
  children?: Pick<ChildRuns, 'links' | 'clarification' | 'reviews'>;
}): RunState {
  const { state, children } = input;
  const clarification = state.clarification ?? children?.clarification() ?? null;
  const reviews = [...state.reviews, ...(children?.reviews() ?? [])];
  // As a person sees the run: it awaits them when one of its children does.
  const phase = state.phase === 'tools' && clarification ? 'awaiting_clarification' : state.phase === 'tools' && reviews.length > 0 ? 'awaiting_review' : state.phase;
  return {
    agent: input.agent,
    phase,
    paused: input.paused,
    turn: state.turn,
    toolCalls: state.toolCallsUsed,
    failedBatchStreak: state.failedBatchStreak,
    clarification,
    reviews,
    children: children?.links ?? [],
    disabledTools: state.tools.filter((t) => !enabledTools(state).includes(t)),
    lastErrors: state.lastErrors,
    finalizing: state.finalizing,
    answer: input.finalAnswer,
    transcriptLength: input.transcriptLength,
    generation: input.generation,
    continuingAsNew: input.continuingAsNew,
    steps: input.steps,
  };
}

/** Markdown for `setCurrentDetails`. */
export function runDetails(s: RunState): string {
  const lines = [`**${s.agent}** · phase \`${s.phase}\`${s.paused ? ' (paused)' : ''} · turn ${s.turn} · ${s.toolCalls} tool call(s)`];
  if (s.clarification) lines.push(`**Question ${s.clarification.id}:** ${s.clarification.question}`);
  for (const r of s.reviews) {
    lines.push(`**Review** \`${r.toolCallId}\` ${r.name} \`${JSON.stringify(r.args).slice(0, 200)}\` (argsHash ${r.argsHash}); allowed: ${allowedDecisions(r).join(', ')}`);
    if (r.description) lines.push(`> ${r.description.slice(0, 300)}`);
  }
  if (s.disabledTools.length) lines.push(`Disabled: ${s.disabledTools.join(', ')}`);
  const last = s.lastErrors.at(-1);
  if (last) lines.push(`Last error: ${last.tool} \`${last.code}\`: ${last.message.slice(0, 200)}`);
  if (s.finalizing) lines.push(`Finalizing: ${s.finalizing}`);
  if (s.answer !== null) lines.push(`**Answer:** ${s.answer.slice(0, 500)}`);
  return lines.join('\n\n');
}
