/**
 * Text renderings for people: values, transcript messages, a run's pending human work.
 * Pure functions. Node-only (used by the CLI).
 */
import type { PendingClarification } from '../shared/human-input/pending-clarification.js';
import type { PendingReview } from '../shared/human-input/pending-review.js';
import { allowedDecisions, carriedBy, type ReviewDecisionType } from '../shared/human-input/review-decision.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { RunState, StepLogEntry } from '../workflows/contract/index.js';
import { CAIRN } from './invocation.js';

/** Compact JSON, cut to `max` characters. */
export function compact(value: unknown, max = 240): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const ROLE_WIDTH = 10;

function block(label: string, text: string): string[] {
  const [first = '', ...rest] = text.split('\n');
  return [`${label.padEnd(ROLE_WIDTH)} ${first}`, ...rest.map((line) => `${' '.repeat(ROLE_WIDTH)} ${line}`)];
}

/** The lines of one transcript message: text, tool calls, tool results and Cairn's errors. */
export function formatMessage(message: TranscriptMessage): string[] {
  switch (message.role) {
    case 'system':
      return block(message.role, message.content);
    case 'user':
      // Cairn's own notes to the model (a disabled tool, a human's answer) are labelled as Cairn's.
      return message.content.startsWith('[cairn] ')
        ? block('cairn', message.content.slice(8))
        : block('user', message.content);
    case 'assistant': {
      const lines = message.content ? block('assistant', message.content) : [];
      for (const call of message.toolCalls)
        lines.push(
          ...block(lines.length ? '' : 'assistant', `→ ${call.name} ${compact(call.args)}  [${call.toolCallId}]`),
        );
      return lines.length ? lines : block('assistant', '(empty)');
    }
    case 'tool':
      return block('tool', formatToolContent(message.name, message.toolCallId, message.content));
  }
}

/**
 * A tool message: `✓ name [id] result`, or Cairn's failure view (shared/tools/model-view.ts:
 * `{ error: { code, message, causes }, hint, partial }`) as `✗ name [id] code: message` with the
 * causes, the hint and any partial data beneath.
 */
export function formatToolContent(name: string, toolCallId: string, content: unknown): string {
  const view = asObject(content);
  const error = asObject(view?.error);
  if (!view || !error) return `✓ ${name} [${toolCallId}] ${compact(content)}`;
  const { code, message, causes, kind: _kind, ...details } = error;
  const { error: _error, hint, partial, ...rest } = view;
  const lines = [
    `✗ ${name} [${toolCallId}] ${typeof code === 'string' ? `${code}: ` : ''}${typeof message === 'string' ? message : compact(error)}`,
  ];
  if (Array.isArray(causes)) for (const cause of causes) lines.push(`  caused by: ${compact(cause)}`);
  if (Object.keys(details).length) lines.push(`  details: ${compact(details, 400)}`);
  if (hint !== undefined) lines.push(`  hint: ${hintText(hint)}`);
  if (partial !== undefined) lines.push(`  partial: ${whole(partial, 400)}`);
  if (Object.keys(rest).length) lines.push(`  ${compact(rest, 400)}`);
  return lines.join('\n');
}

/** A value as JSON when it fits in `max` characters; else its size, never JSON cut mid-way. */
function whole(value: unknown, max: number): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length <= max ? text : `(${text.length} characters; cairn show --json has it whole)`;
}

/**
 * A retry hint (shared/failures/retry-hint.ts) as a person reads it: what is missing, what the
 * model is asked or told, what to try next. Its reason, tool and prior input are said above.
 */
export function hintText(hint: unknown): string {
  const h = asObject(hint);
  if (!h) return whole(hint, 400);
  const parts: string[] = [];
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String).join(', ') : undefined);
  if (list(h.missingFields)) parts.push(`missing ${list(h.missingFields)}`);
  if (typeof h.clarifyingQuestion === 'string') parts.push(`ask the user: ${h.clarifyingQuestion}`);
  if (typeof h.message === 'string') parts.push(h.message);
  if (typeof h.retryAfterMs === 'number') parts.push(`retry in ${h.retryAfterMs} ms`);
  if (h.nextInput !== undefined) parts.push(`next call with ${whole(h.nextInput, 160)}`);
  if (h.exampleInput !== undefined) parts.push(`for example ${whole(h.exampleInput, 160)}`);
  if (list(h.availableTools)) parts.push(`tools left: ${list(h.availableTools)}`);
  if (h.restrictToTool === true && typeof h.tool === 'string') parts.push(`the next turn may call only ${h.tool}`);
  return parts.length ? parts.join('; ') : `${typeof h.reason === 'string' ? h.reason : 'retry'} (nothing to add)`;
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** One planner decision from the run's step log. */
export function formatStep(step: StepLogEntry): string {
  return `[turn ${step.turn}] ${step.action}: ${step.detail}`;
}

/** The question a run waits on, and (unless `commands` is false: a question of the past) how to answer it. */
export function formatQuestion(workflowId: string, question: PendingClarification, commands = true): string[] {
  const lines = [`question ${question.id}${question.tool ? ` (from ${question.tool})` : ''}: ${question.question}`];
  if (question.missingFields?.length) lines.push(`  missing: ${question.missingFields.join(', ')}`);
  if (commands) lines.push(answerCommandLine(workflowId));
  return lines;
}

/** `  answer with: cairn answer <id> "<text>"`. */
export function answerCommandLine(workflowId: string): string {
  return `  answer with: ${CAIRN} answer ${workflowId} "<text>"`;
}

/** A tool call a run waits to have reviewed, and (unless `commands` is false) how to decide it. */
export function formatReview(workflowId: string, review: PendingReview, commands = true): string[] {
  return [
    `review ${review.toolCallId}: ${review.name} ${compact(review.args)}`,
    ...(review.description ? [`  ${review.description}`] : []),
    // What a workspace write or patch would change (docs/workspaces.md): the diff, indented.
    ...(review.change
      ? [
          '  would change:',
          ...review.change
            .trimEnd()
            .split('\n')
            .map((line) => `    ${line}`),
        ]
      : []),
    ...(commands ? [reviewCommandLine(workflowId, review)] : []),
  ];
}

/** `  decide with: cairn review <id> <toolCallId> accept | …`, the decisions the review allows. */
export function reviewCommandLine(workflowId: string, review: PendingReview): string {
  // Each decision with the argument it carries (shared/human-input/review-decision.ts).
  const form = (type: ReviewDecisionType) => {
    const c = carriedBy(type);
    return !c
      ? type
      : c.value === 'json'
        ? `${type} '<json ${c.name}>'`
        : `${type} ${c.required ? `<${c.name}>` : `[${c.name}]`}`;
  };
  return `  decide with: ${CAIRN} review ${workflowId} ${review.toolCallId} ${allowedDecisions(review)
    .map(form)
    .join(' | ')}`;
}

/**
 * One summary line of a run's state; `made` is how many calls the model made, when known (the
 * transcript's); `closed`: how a run that did not complete ended (failed, terminated…), said
 * instead of its last phase (a failed run's phase reads `done`).
 */
export function formatSummary(workflowId: string, state: RunState, made?: number, closed?: string): string {
  const where = closed ? `status ${closed}` : `phase ${state.phase}${state.paused ? ' (paused)' : ''}`;
  const agent = state.agentVersion ? `${state.agent}@${state.agentVersion}` : state.agent;
  return `${workflowId} · agent ${agent} · ${where} · turn ${state.turn} · ${formatCallCount(state.toolCalls, made)}`;
}

/**
 * `6 tool call(s), 2 refused before running`: the calls the model made, and how many of them never
 * ran (refused at validation or by policy), when the transcript says more were made than ran.
 */
export function formatCallCount(ran: number, made?: number): string {
  return made !== undefined && made > ran
    ? `${made} tool call(s), ${made - ran} refused before running`
    : `${ran} tool call(s)`;
}

/** How many tool calls the model made in `transcript` (run or refused). */
export function callsMade(transcript: readonly TranscriptMessage[]): number {
  return transcript.reduce((sum, message) => sum + (message.role === 'assistant' ? message.toolCalls.length : 0), 0);
}
