/**
 * What a run decided, from its recording: the tools it chose and with which arguments, the
 * planner's actions (repairs, back-offs, tools disabled, people asked, turns) and how it ended;
 * and the difference between two runs of one case, change by change. Pure, deterministic.
 */
import { canonicalJson } from '../json/canonical-json.js';
import { argsHash } from '../identity/hash.js';
import { isJsonObject, type JsonValue } from '../json/json.js';
import type { Recording } from './recording.js';

export interface TracedCall {
  readonly turn: number;
  readonly name: string;
  readonly args: JsonValue;
  readonly argsHash: string;
}

export interface DecisionTrace {
  /** The calls the model asked for, in order (those refused at the boundary too). */
  readonly calls: readonly TracedCall[];
  readonly turns: number;
  /** Model turns restricted to one tool to repair its call. */
  readonly repairs: number;
  readonly backOffs: number;
  /** Tools offered at the first turn and missing from a later one. */
  readonly disabledTools: readonly string[];
  readonly clarifications: number;
  readonly reviews: number;
  /** Budget requests a person decided. */
  readonly budgets: number;
  /** `answered`, the code the run ended with, or `failed: <message>` / the close status. */
  readonly outcome: string;
  readonly answer: string | null;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly costUsd: number };
  readonly durationMs: number;
}

/** The trace of a recording; `unanswered` are people the run asked that nobody answered (an evaluation stops the run there). */
export function traceOf(
  recording: Recording,
  unanswered: { readonly clarifications?: number; readonly reviews?: number; readonly budgets?: number } = {},
): DecisionTrace {
  const calls: TracedCall[] = [];
  let repairs = 0;
  const offered = new Set(recording.modelTurns[0]?.toolNames ?? []);
  const disabled = new Set<string>();
  recording.modelTurns.forEach((turn, index) => {
    if (isJsonObject(turn.toolChoice)) repairs++;
    // A forced final turn offers no tools at all: that is not disabling them.
    if (turn.toolNames.length > 0) for (const name of offered) if (!turn.toolNames.includes(name)) disabled.add(name);
    const response = isJsonObject(turn.outcome) ? turn.outcome.response : null;
    const toolCalls = isJsonObject(response) && Array.isArray(response.toolCalls) ? response.toolCalls : [];
    for (const call of toolCalls) {
      if (!isJsonObject(call) || typeof call.name !== 'string') continue;
      const args = parsedArguments(call.arguments);
      calls.push({ turn: index + 1, name: call.name, args, argsHash: argsHash(args) });
    }
  });
  const result = recording.end.result;
  const usage = isJsonObject(result?.usage) ? result.usage : {};
  return {
    calls,
    turns: recording.modelTurns.length,
    repairs,
    backOffs: recording.backOffs,
    disabledTools: [...disabled].sort(),
    // By id: an answer the run refused (sent again by Signal) is not another question.
    clarifications: new Set(recording.answers.map((answer) => answer.id)).size + (unanswered.clarifications ?? 0),
    reviews: new Set(recording.reviews.map((review) => review.toolCallId)).size + (unanswered.reviews ?? 0),
    budgets: recording.budgets.length + (unanswered.budgets ?? 0),
    outcome: outcomeOf(recording),
    answer: typeof result?.answer === 'string' ? result.answer : null,
    usage: {
      inputTokens: numberOr0(usage.inputTokens),
      outputTokens: numberOr0(usage.outputTokens),
      costUsd: numberOr0(usage.costUsd),
    },
    durationMs: recording.durationMs,
  };
}

function numberOr0(value: JsonValue | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** A model's raw tool-call arguments as JSON, or the raw text when they are not JSON. */
function parsedArguments(raw: JsonValue | undefined): JsonValue {
  if (typeof raw !== 'string') return raw ?? null;
  try {
    return JSON.parse(raw) as JsonValue;
  } catch {
    return raw;
  }
}

function outcomeOf(recording: Recording): string {
  const { status, result, failure } = recording.end;
  if (status !== 'completed') return status === 'failed' ? `failed: ${failure ?? 'unknown'}` : status;
  const outcome = result?.outcome;
  if (!isJsonObject(outcome)) return 'answered';
  return outcome.status === 'answered' ? 'answered' : String(outcome.code ?? outcome.status);
}

export type ChangeKind =
  | 'tool_skipped'
  | 'tool_added'
  | 'arguments_changed'
  | 'call_count'
  | 'repairs'
  | 'back_offs'
  | 'disabled_tools'
  | 'clarifications'
  | 'reviews'
  | 'budgets'
  | 'turns'
  | 'outcome'
  | 'answer';

/** One decision that differs between two runs of a case. */
export interface DecisionChange {
  readonly kind: ChangeKind;
  readonly tool?: string;
  readonly before: JsonValue;
  readonly after: JsonValue;
  /** The change in words. */
  readonly text: string;
}

/** Every decision `after` took differently from `before`; empty when they agree. */
export function diffDecisions(before: DecisionTrace, after: DecisionTrace): DecisionChange[] {
  const changes: DecisionChange[] = [];
  const tools = [...new Set([...before.calls, ...after.calls].map((call) => call.name))].sort();
  for (const tool of tools) {
    const was = before.calls.filter((call) => call.name === tool);
    const now = after.calls.filter((call) => call.name === tool);
    if (now.length === 0) {
      changes.push({
        kind: 'tool_skipped',
        tool,
        before: was.length,
        after: 0,
        text: `no longer calls ${tool} (called ${times(was.length)} before)`,
      });
      continue;
    }
    if (was.length === 0) {
      changes.push({
        kind: 'tool_added',
        tool,
        before: 0,
        after: now.length,
        text: `now calls ${tool} (${times(now.length)}), which it did not before`,
      });
      continue;
    }
    for (let i = 0; i < Math.min(was.length, now.length); i++) {
      const [a, b] = [was[i]!, now[i]!];
      if (a.argsHash === b.argsHash) continue;
      changes.push({
        kind: 'arguments_changed',
        tool,
        before: a.args,
        after: b.args,
        text: `calls ${tool} (call ${i + 1}) with other arguments: ${argumentChanges(a.args, b.args)}`,
      });
    }
    if (was.length !== now.length)
      changes.push({
        kind: 'call_count',
        tool,
        before: was.length,
        after: now.length,
        text: `calls ${tool} ${times(now.length)} instead of ${times(was.length)}`,
      });
  }
  const counted: [ChangeKind, keyof DecisionTrace, string][] = [
    ['repairs', 'repairs', 'repairs'],
    ['back_offs', 'backOffs', 'back-offs'],
    ['clarifications', 'clarifications', 'questions to a person'],
    ['reviews', 'reviews', 'reviews by a person'],
    ['budgets', 'budgets', 'budget requests to a person'],
    ['turns', 'turns', 'model turns'],
  ];
  for (const [kind, key, words] of counted) {
    const [a, b] = [before[key] as number, after[key] as number];
    if (a !== b) changes.push({ kind, before: a, after: b, text: `${words}: ${a} → ${b}` });
  }
  if (before.disabledTools.join() !== after.disabledTools.join())
    changes.push({
      kind: 'disabled_tools',
      before: [...before.disabledTools],
      after: [...after.disabledTools],
      text: `tools disabled: ${before.disabledTools.join(', ') || 'none'} → ${after.disabledTools.join(', ') || 'none'}`,
    });
  if (before.outcome !== after.outcome)
    changes.push({
      kind: 'outcome',
      before: before.outcome,
      after: after.outcome,
      text: `ends ${after.outcome} instead of ${before.outcome}`,
    });
  if ((before.answer ?? '').trim() !== (after.answer ?? '').trim())
    changes.push({
      kind: 'answer',
      before: before.answer,
      after: after.answer,
      text: `answers ${clip(after.answer)} instead of ${clip(before.answer)}`,
    });
  return changes;
}

function times(n: number): string {
  return n === 1 ? 'once' : `${n} times`;
}

function clip(text: string | null): string {
  if (text === null) return 'nothing';
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/** The fields that differ, `field: before → after`; the whole value when either is not an object. */
export function argumentChanges(before: JsonValue, after: JsonValue): string {
  if (!isJsonObject(before) || !isJsonObject(after)) return `${shown(before)} → ${shown(after)}`;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys
    .filter(
      (key) =>
        canonicalJson(before[key] ?? null) !== canonicalJson(after[key] ?? null) || key in before !== key in after,
    )
    .map(
      (key) =>
        `${key}: ${key in before ? shown(before[key]!) : '(none)'} → ${key in after ? shown(after[key]!) : '(none)'}`,
    )
    .join(', ');
}

function shown(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
