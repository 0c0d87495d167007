/**
 * What the Temporal UI and the `state` Query show of a run: the phase, the pending question or
 * review, the last error and the planner's latest decisions (current details), and the one-line
 * summaries of model turns and tool calls in the timeline. Renders only: every decision is the
 * planner's. Deterministic.
 */
import {
  budgetLimits,
  enabledTools,
  modelTurnAction,
  runOutcome,
  type PlannerState,
  type PlanStep,
  type StepAction,
} from '../planner/index.js';
import type { ReviewDecision } from '../shared/human-input/review-decision.js';
import { assertNever } from '../shared/assert-never.js';
import { NO_USAGE } from '../shared/model/model-usage.js';
import type { ToolChoice } from '../shared/model/model-response.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import { failureCode } from '../shared/tools/tool-result.js';
import { allowedDecisions } from '../shared/human-input/review-decision.js';
import type { RunState, StepLogEntry } from './contract/run-state.js';
import type { ChildRuns } from './child-runs.js';

/** The planner's step in a few words: what the workflow is about to do, and why. */
export function describeStep(
  step: PlanStep,
  state: PlannerState,
): { readonly action: StepAction; readonly detail: string } {
  switch (step.type) {
    case 'call_model': {
      const action = modelTurnAction(Boolean(state.finalizing), step.toolChoice);
      if (action === 'final') return { action, detail: `final model turn, no tools: ${state.finalizing}` };
      if (typeof step.toolChoice === 'object')
        return { action, detail: `model repairs the call, restricted to ${step.toolChoice.tool}` };
      return { action, detail: `model turn with ${step.tools.length} tool(s)` };
    }
    case 'execute_tools':
      return { action: 'run_tools', detail: step.calls.map((c) => c.name).join(', ') };
    case 'reconcile':
      return {
        action: 'reconcile',
        detail: `outcome unknown: asking ${step.calls.map(({ call }) => `${call.name} (call ${call.toolCallId})`).join(', ')} whether it took effect`,
      };
    case 'back_off':
      return { action: 'back_off', detail: `${step.reason}; retry in ${step.delayMs} ms without a model turn` };
    case 'await_clarification':
      return { action: 'clarify', detail: step.clarification.question };
    case 'await_review':
      return { action: 'review', detail: step.reviews.map((r) => `${r.name} ${JSON.stringify(r.args)}`).join('; ') };
    case 'await_budget': {
      const r = step.request;
      const what =
        r.limit === 'tokens' ? `${r.usedTokens} of ${r.maxTokens} tokens` : `${r.usedCostUsd} of ${r.maxCostUsd}`;
      return {
        action: 'budget',
        detail: `budget used up (${what}): waiting for a person to extend it (${r.id}) or stop`,
      };
    }
    case 'finish': {
      const outcome = runOutcome(state, step);
      if (outcome.status === 'answered') return { action: 'finish', detail: `the model answered${usageNote(state)}` };
      // A model's end already names its code (`model_misconfigured: …`): said once.
      const why = step.reason ?? outcome.message;
      return {
        action: 'finish',
        detail: `${why.startsWith(`${outcome.code}:`) ? why : `${outcome.code}: ${why}`}${usageNote(state)}`,
      };
    }
    default:
      return assertNever(step, 'step');
  }
}

/** The run's usage in a few words, for the step log's last line: ` · 1234 tokens in, 56 out, cost 0.0123`. */
function usageNote(state: PlannerState): string {
  const u = state.usage;
  if (!u || u.calls === 0) return '';
  return ` · ${u.inputTokens} tokens in, ${u.outputTokens} out${u.costUsd > 0 ? `, cost ${u.costUsd}` : ''}`;
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
  failure?: RunState['failure'];
  /** Who the run belongs to (its input's tenant and user). */
  owner?: { readonly tenant?: string | undefined; readonly user?: string | undefined };
  /** Child runs in progress, and what they wait on (child-runs.ts). */
  children?: Pick<ChildRuns, 'links' | 'clarification' | 'reviews'>;
  /** The step the run is on: a pending budget request is read off it; a finish gives the outcome. */
  step?: PlanStep;
}): RunState {
  const { state, children } = input;
  const clarification = state.clarification ?? children?.clarification() ?? null;
  const reviews = [...state.reviews, ...(children?.reviews() ?? [])];
  // As a person sees the run: it awaits them when one of its children does.
  const phase =
    state.phase === 'tools' && clarification
      ? 'awaiting_clarification'
      : state.phase === 'tools' && reviews.length > 0
        ? 'awaiting_review'
        : state.phase;
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
    disabledTools: disabledTools(state),
    lastErrors: state.lastErrors,
    finalizing: state.finalizing,
    answer: input.finalAnswer,
    ...(state.workspace !== undefined && { workspace: state.workspace }),
    transcriptLength: input.transcriptLength,
    generation: input.generation,
    continuingAsNew: input.continuingAsNew,
    steps: input.steps,
    ...(input.failure && { failure: input.failure }),
    budget: {
      usage: state.usage ?? NO_USAGE,
      ...budgetLimits(state),
      extended: state.budgetExtra ?? { tokens: 0, costUsd: 0 },
      pending: input.step?.type === 'await_budget' ? input.step.request : null,
    },
    ...(input.step?.type === 'finish' && input.finalAnswer !== null && { outcome: runOutcome(state, input.step) }),
    ...(input.owner?.tenant !== undefined && { tenant: input.owner.tenant }),
    ...(input.owner?.user !== undefined && { user: input.owner.user }),
  };
}

/** The run's tools the model may not see this turn, in the run's order (the enabled ones listed once, not once per tool). */
function disabledTools(state: PlannerState): string[] {
  const enabled = new Set(enabledTools(state));
  return state.tools.filter((t) => !enabled.has(t));
}

/**
 * Markdown for `setCurrentDetails`: one short line per fact, what a person must act on first.
 * Temporal UI 2.42 (the dev server's) sizes the details frame by the frame's `body.scrollHeight`,
 * which leaves out the body's margins: the last ~14 px would be cut off. The frame therefore ends
 * with an empty line, and everything above it shows whole. Free text is escaped, on one line.
 */
export function runDetails(s: RunState): string {
  const status = [
    `**${text(s.agent, 64)}**${s.agentVersion ? ` version ${code(s.agentVersion, 16)}` : ''}`,
    `phase ${code(s.phase, 40)}`,
    `turn ${s.turn}`,
    `${s.toolCalls} tool call${s.toolCalls === 1 ? '' : 's'}`,
  ];
  if (s.paused) status.push('paused');
  if (s.continuingAsNew) status.push('handing over to a new run');
  const usage = s.budget?.usage;
  if (usage && usage.calls > 0)
    status.push(
      `${usage.inputTokens + usage.outputTokens} tokens${usage.costUsd > 0 ? ` · cost ${usage.costUsd}` : ''}`,
    );
  const lines = [status.join(' · ')];
  if (s.failure) lines.push(`**Failed** ${code(s.failure.type, 64)}: ${text(s.failure.message, MAX_ERROR_CHARS)}`);
  if (s.clarification)
    lines.push(`**Question ${text(s.clarification.id, 40)}:** ${text(s.clarification.question, 300)}`);
  for (const r of s.reviews) {
    lines.push(`**Review ${text(r.toolCallId, 40)}:** ${text(r.name, 64)} ${code(JSON.stringify(r.args), 120)}`);
    lines.push(`argsHash ${code(r.argsHash, 80)} · allowed: ${allowedDecisions(r).join(', ')}`);
    if (r.description) lines.push(`_${text(r.description, 200)}_`);
  }
  const pending = s.budget?.pending;
  if (pending)
    lines.push(
      `**Budget ${text(pending.id, 40)}:** ${pending.limit === 'tokens' ? `${pending.usedTokens} of ${pending.maxTokens} tokens` : `cost ${pending.usedCostUsd} of ${pending.maxCostUsd}`} used: extend it or stop`,
    );
  if (s.outcome?.status === 'ended')
    lines.push(`**Ended** ${code(s.outcome.code, 40)}: ${text(s.outcome.message, 200)}`);
  if (s.answer !== null) lines.push(`**Answer:** ${text(s.answer, 300)}`);
  if (s.finalizing) lines.push(`**Finalizing:** ${text(s.finalizing, 200)}`);
  const last = s.lastErrors.at(-1);
  if (last) {
    lines.push(`**Last error** ${text(last.toolCallId, 40)} ${text(last.tool, 64)} ✗ ${code(last.code, 64)}:`);
    lines.push(text(last.message, MAX_ERROR_CHARS));
  }
  if (s.disabledTools.length) lines.push(`**Disabled:** ${text(s.disabledTools.join(', '), 200)}`);
  const decisions = s.steps.filter((step) => DECISION_ACTIONS.has(step.action)).slice(-MAX_DECISIONS);
  if (decisions.length) {
    lines.push('**Decisions:**');
    for (const d of decisions)
      lines.push(`after turn ${d.turn} · ${d.action.replace('_', ' ')}: ${text(d.detail, 56)}`);
  }
  // A hard line break after every line but the spacer: one compact paragraph.
  return [...lines, NBSP].join('\\\n');
}

/** How much of the last error's message the details show. */
export const MAX_ERROR_CHARS = 400;
/** How many of the planner's latest decisions the details list. */
const MAX_DECISIONS = 4;
/** Steps that are decisions (a plain model turn or tool run is not). */
const DECISION_ACTIONS: ReadonlySet<StepAction> = new Set<StepAction>([
  'repair',
  'back_off',
  'reconcile',
  'clarify',
  'review',
  'final',
  'budget',
]);
const NBSP = '\u00a0';

/**
 * Free text for the details: on one line, at most `max` characters, markdown and HTML escaped
 * (also what would start a list or a heading at the start of a line).
 */
function text(value: string, max: number): string {
  return oneLine(value, max)
    .replace(/[\\`*_[\]<>#|~!&]/g, (c) => `\\${c}`)
    .replace(/^([-+=])/, '\\$1')
    .replace(/^(\d+)([.)])(?=\s|$)/, '$1\\$2');
}

/** A code span (shown as it is: the UI's markdown turns quotes and dashes of plain text typographic). */
function code(value: string, max: number): string {
  const flat = oneLine(value, max);
  const fence = '`'.repeat(Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** Whitespace collapsed to single spaces, cut to `max` characters with an ellipsis. */
export function oneLine(value: string, max: number): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const chars = Array.from(flat); // by code point: a character is never cut in half
  return chars.length > max
    ? `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`
    : flat;
}

/** The server keeps an event's summary to 400 bytes of serialized payload: summaries stay well under. */
export const MAX_SUMMARY_CHARS = 200;
const MAX_SUMMARY_BYTES = 300;

/**
 * A summary for the UI's timeline: one line, at most MAX_SUMMARY_CHARS characters and
 * MAX_SUMMARY_BYTES of UTF-8, `suffix` included and kept whole.
 */
export function summaryLine(value: string, suffix = ''): string {
  const line = oneLine(value, MAX_SUMMARY_CHARS - suffix.length);
  const room = MAX_SUMMARY_BYTES - utf8Length(suffix);
  if (utf8Length(line) <= room) return `${line}${suffix}`;
  const chars = Array.from(line); // by code point: a character is never cut in half
  while (utf8Length(`${chars.join('')}…`) > room) chars.pop();
  return `${chars.join('').trimEnd()}…${suffix}`;
}

function utf8Length(value: string): number {
  let bytes = 0;
  for (const c of value) {
    const code = c.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * The model activity's summary: which turn, and what it reacts to. A tool activity completes even
 * when its ToolResult is an error (a value, not a failure), so the next command tells: the batch's
 * failed calls with their codes, and what the planner did about them, read off its state (the tool
 * it restricts the turn to, the tools it disabled, the reason for a forced final turn).
 * `model turn 3 — after search_orders ✗ invalid_arguments → repair`; a forced final turn ends with
 * its reason and `(final)`.
 */
export function modelTurnSummary(state: PlannerState, toolChoice: ToolChoice): string {
  const repairing = typeof toolChoice === 'object' ? toolChoice.tool : undefined;
  const disabled = new Set(disabledTools(state));
  // The batch just completed is the last turn's: its calls are numbered `<turn>.<n>`.
  const failed = state.lastErrors.filter((e) => e.toolCallId.startsWith(`${state.turn}.`));
  const reactions = failed.map(
    (e) => `${e.tool} ✗ ${e.code}${e.tool === repairing ? ' → repair' : disabled.has(e.tool) ? ' → disabled' : ''}`,
  );
  if (repairing && !failed.some((e) => e.tool === repairing)) reactions.push(`repair ${repairing}`);
  const after = reactions.length > 0 ? ` — after ${reactions.join(', ')}` : '';
  const why = state.finalizing ? ` · ${state.finalizing}` : '';
  return summaryLine(`model turn ${state.turn + 1}${after}${why}`, state.finalizing ? ' (final)' : '');
}

/**
 * What a tool activity's summary adds to the call: a call run again after a back-off (the code it
 * failed with), a call a reviewer accepted or edited. Empty for a plain call.
 */
export function toolCallNote(call: ToolCall, state: PlannerState, decision?: ReviewDecision): string {
  const notes: string[] = [];
  const before = state.batch?.results[call.toolCallId];
  const code = before && failureCode(before);
  if (code) notes.push(`again after ${code}`);
  if (decision?.type === 'accept') notes.push('accepted by a reviewer');
  if (decision?.type === 'edit') notes.push('edited by a reviewer');
  return notes.join(' · ');
}
