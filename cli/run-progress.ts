/**
 * What changed between two polls of a run's state, as events (for `--json`) with their text lines
 * (for people). Pure: `cairn watch` polls, this decides what to say. Node-only (used by the CLI).
 */
import type { RunState } from '../workflows/messages.js';
import { formatQuestion, formatReview, formatStep } from './format.js';

/** What `cairn watch --json` reports, in order. */
export type WatchEvent =
  | { readonly type: 'phase'; readonly phase: string; readonly turn: number; readonly toolCalls: number }
  | { readonly type: 'step'; readonly seq: number; readonly turn: number; readonly action: string; readonly detail: string }
  | { readonly type: 'paused' | 'resumed'; readonly turn: number }
  | { readonly type: 'error'; readonly turn: number; readonly toolCallId: string; readonly tool: string; readonly code: string; readonly message: string }
  | { readonly type: 'finalizing'; readonly turn: number; readonly reason: string }
  | { readonly type: 'continued_as_new'; readonly generation: number }
  | { readonly type: 'question'; readonly turn: number; readonly id: string; readonly question: string }
  | { readonly type: 'review'; readonly turn: number; readonly toolCallId: string; readonly tool: string; readonly args: unknown }
  | { readonly type: 'done'; readonly turn: number; readonly answer: string | null };

export interface Progress {
  readonly event: WatchEvent;
  readonly lines: readonly string[];
}

/** What has been reported so far; updated by `progress`. */
export interface Reported {
  previous: RunState | undefined;
  /** The last step-log entry reported (numbering continues across continue-as-new). */
  lastSeq: number;
  readonly errors: Set<string>;
}

export const nothingReported = (): Reported => ({ previous: undefined, lastSeq: 0, errors: new Set() });

/** True when a run waits for a person: a question or a review. */
export function awaitsHuman(state: RunState): boolean {
  return (state.phase === 'awaiting_clarification' && state.clarification !== null) || (state.phase === 'awaiting_review' && state.reviews.length > 0);
}

/** The news in `state` since `reported`, ending with the answer or what a human must do when the run stops there. */
export function progress(workflowId: string, state: RunState, reported: Reported): Progress[] {
  const out: Progress[] = [];
  const at = `[turn ${state.turn}]`;
  const last = reported.previous;
  if (last && state.generation !== last.generation) {
    out.push({ event: { type: 'continued_as_new', generation: state.generation }, lines: [`${at} continued as new (generation ${state.generation})`] });
  }
  for (const step of state.steps ?? []) {
    if (step.seq <= reported.lastSeq) continue;
    reported.lastSeq = step.seq;
    out.push({ event: { type: 'step', ...step }, lines: [formatStep(step)] });
  }
  for (const e of state.lastErrors) {
    const key = `${e.toolCallId}|${e.code}|${e.message}`;
    if (reported.errors.has(key)) continue;
    reported.errors.add(key);
    const turn = turnOfCall(e.toolCallId) ?? state.turn;
    out.push({ event: { type: 'error', turn, ...e }, lines: [`[turn ${turn}] error ${e.tool} [${e.toolCallId}] ${e.code}: ${e.message}`] });
  }
  // The phase line is left out at the end: the answer line says it.
  if ((!last || state.phase !== last.phase || state.turn !== last.turn) && state.phase !== 'done')
    out.push({ event: { type: 'phase', phase: state.phase, turn: state.turn, toolCalls: state.toolCalls }, lines: [`${at} phase ${state.phase} · ${state.toolCalls} tool call(s)`] });
  if (last && state.paused !== last.paused) out.push({ event: { type: state.paused ? 'paused' : 'resumed', turn: state.turn }, lines: [`${at} ${state.paused ? 'paused' : 'resumed'}`] });
  if (state.finalizing && state.finalizing !== last?.finalizing)
    out.push({ event: { type: 'finalizing', turn: state.turn, reason: state.finalizing }, lines: [`${at} final turn: ${state.finalizing}`] });
  if (state.phase === 'done') out.push({ event: { type: 'done', turn: state.turn, answer: state.answer }, lines: [`${at} done: ${state.answer ?? '(no answer)'}`] });
  if (awaitsHuman(state)) {
    const q = state.clarification;
    if (q) out.push({ event: { type: 'question', turn: state.turn, id: q.id, question: q.question }, lines: prefix(at, formatQuestion(workflowId, q)) });
    for (const r of state.reviews)
      out.push({ event: { type: 'review', turn: state.turn, toolCallId: r.toolCallId, tool: r.name, args: r.args }, lines: prefix(at, formatReview(workflowId, r)) });
  }
  reported.previous = state;
  return out;
}

/** Tool call ids are `<turn>.<index>` (workflows/agent-run.ts). */
function turnOfCall(toolCallId: string): number | undefined {
  const match = /^(\d+)\.\d+$/.exec(toolCallId);
  return match ? Number(match[1]) : undefined;
}

function prefix(at: string, [first = '', ...rest]: readonly string[]): string[] {
  return [`${at} ${first}`, ...rest];
}
