/**
 * The one mapping from a Cairn run event to AG-UI events (`@ag-ui/core`'s types). Per window
 * (one AG-UI run) a small context remembers which tool calls it opened and holds back a model
 * turn's closing text until it knows whether the `finish` event says it whole. Live deltas stream
 * a turn's text as it comes (TEXT_MESSAGE_CONTENT per batch); a retried attempt's text is a new
 * message, the stale one ended and named by CUSTOM `cairn.reset`; a turn that streamed is not
 * sent again whole. Tool arguments are not streamed: a retry reuses the call ids, and AG-UI has
 * no way to take back arguments sent. Node-only (client side).
 *
 * | Cairn event | AG-UI events |
 * | `model_delta` text | TEXT_MESSAGE_START (first), TEXT_MESSAGE_CONTENT |
 * | `model_reset` | TEXT_MESSAGE_END of the stale attempt's message, CUSTOM `cairn.reset` |
 * | `model_turn` streamed | TEXT_MESSAGE_END |
 * | `model_turn` text | TEXT_MESSAGE_START, TEXT_MESSAGE_CONTENT, TEXT_MESSAGE_END |
 * | `model_turn` reasoning (think blocks) | REASONING_START, REASONING_MESSAGE_START/CONTENT/END, REASONING_END |
 * | `tool_start` / `review` | TOOL_CALL_START, TOOL_CALL_ARGS, TOOL_CALL_END |
 * | `tool_end` | TOOL_CALL_RESULT (the ToolResult as JSON: error chain and hint included) |
 * | `decision` | STEP_STARTED + STEP_FINISHED (stepName: the planner's action) |
 * | `finish` | the answer as a text message (RUN_FINISHED is the window's) |
 * | others | CUSTOM `cairn.<type>` |
 */
import { EventType, type Interrupt, type Event as AgUiEvent } from '@ag-ui/core';
import { toAgUiEvents as liveAgUiEvents, type LiveOp } from './live-deltas.js';
import type { RunEventItem } from '../../client/run-events.js';
import type { LiveEvent } from '../../shared/live/model-delta.js';
import type { PendingInterrupt } from './interrupts.js';
import { allowedDecisions, type ReviewDecisionType } from '../../workflows/contract/index.js';
import { reviewDecisionJsonSchema } from '../../shared/human-input/review-decision.js';
import { budgetDecisionSchema } from '../../workflows/contract/pending-input.js';
import { isLiveEvent, LiveWindow } from './live-window.js';
import { thinkingOf, visibleText } from '../../shared/model/think-block.js';

export interface AgUiWindowContext {
  /** Tool calls the client has (sent by this window, or by an earlier one: TOOL_CALL_START..END go out once per thread). */
  readonly opened: Set<string>;
  /** Message ids the client has: their text is not sent again. */
  readonly messages: ReadonlySet<string>;
  /** A person cancelled the run (a `human` cancel event came): its end is `cancelled`, not `success`. */
  cancelled: boolean;
  /** A model turn's text held back: a final turn's text comes whole with `finish`. */
  held?: { readonly id: string; readonly text: string };
  /** The live deltas this window streams. */
  readonly live: LiveWindow;
}

export function agUiWindowContext(seen?: {
  readonly toolCalls: Iterable<string>;
  readonly messages: ReadonlySet<string>;
}): AgUiWindowContext {
  return {
    opened: new Set(seen?.toolCalls ?? []),
    messages: seen?.messages ?? new Set(),
    cancelled: false,
    live: new LiveWindow(),
  };
}

/** A message id unique in the thread, even when a finished thread starts a new run. */
export function messageId(event: RunEventItem): string {
  return `m-${event.at.toString(36)}-${event.offset}`;
}

/** `event`: a run event, or a live event from the window's live source. */
export function toAgUiEvents(event: RunEventItem | LiveEvent, context: AgUiWindowContext): AgUiEvent[] {
  const out: AgUiEvent[] = [];
  // The planner's decision comes between a final turn and `finish`: the text stays held through it.
  if (flushesHeld(event)) {
    if (context.held) out.push(...textMessage(context.held.id, context.held.text, context));
    delete context.held;
  }
  if (isLiveEvent(event)) return [...out, ...live(context.live.ops(event))];
  const timestamp = event.at;
  switch (event.type) {
    case 'model_turn': {
      // A reasoning model's thoughts (think blocks in the turn's text) are REASONING_* events, never text.
      const text = event.text === undefined ? undefined : visibleText(event.text);
      const end = context.live.endTurn(event.error !== undefined, text);
      out.push(...live(end.ops));
      if (event.text) out.push(...reasoningMessage(`${messageId(event)}-reasoning`, thinkingOf(event.text), context));
      if (event.error) out.push({ type: EventType.CUSTOM, timestamp, name: 'cairn.model_error', value: event.error });
      else if (end.streamed)
        break; // its text went out as deltas
      else if (text && (event.toolCalls?.length ?? 0) > 0) out.push(...textMessage(messageId(event), text, context));
      else if (text) context.held = { id: messageId(event), text };
      break;
    }
    case 'tool_start':
      out.push(...toolCall(event.toolCallId, event.name, event.args, context));
      break;
    case 'review':
      for (const review of event.reviews) out.push(...toolCall(review.toolCallId, review.name, review.args, context));
      break;
    case 'tool_end':
      // A call the workflow refused (invalid arguments) never started: open it so the result has a call.
      if (!context.opened.has(event.toolCallId))
        out.push(...toolCall(event.toolCallId, event.name, event.args ?? {}, context));
      out.push({
        type: EventType.TOOL_CALL_RESULT,
        timestamp,
        messageId: messageId(event),
        toolCallId: event.toolCallId,
        role: 'tool',
        content: JSON.stringify(event.result),
      });
      break;
    case 'decision': {
      const metadata = { seq: event.seq, turn: event.turn, detail: event.detail };
      out.push(
        { type: EventType.STEP_STARTED, timestamp, stepName: event.action, metadata },
        { type: EventType.STEP_FINISHED, timestamp, stepName: event.action, metadata },
      );
      break;
    }
    case 'finish': {
      const id = context.held?.id ?? messageId(event);
      delete context.held;
      if (event.answer && !context.live.streamedAnswer(event.answer))
        out.push(...textMessage(id, event.answer, context));
      break;
    }
    case 'human':
      if (event.kind === 'cancel') context.cancelled = true;
      out.push({
        type: EventType.CUSTOM,
        timestamp,
        name: 'cairn.human',
        value: { kind: event.kind, id: event.id, detail: event.detail, turn: event.turn },
      });
      break;
    default: {
      const { type, offset: _offset, at: _at, ...value } = event;
      out.push({ type: EventType.CUSTOM, timestamp, name: `cairn.${type}`, value });
    }
  }
  return out;
}

/** True for an event that shows the held turn was not the last (not `decision`, not `finish`). */
export function flushesHeld(event: { readonly type: string }): boolean {
  return event.type !== 'finish' && event.type !== 'decision';
}

/** What the window still holds back, when it ends without a `finish` event. */
export function flushAgUi(context: AgUiWindowContext): AgUiEvent[] {
  const held = context.held;
  delete context.held;
  return [...live(context.live.close()), ...(held ? textMessage(held.id, held.text, context) : [])];
}

/** Live ops as AG-UI events: text only (tool calls go out whole with `tool_start`). */
function live(ops: readonly LiveOp[]): AgUiEvent[] {
  return ops.filter((op) => !op.op.startsWith('tool-')).flatMap((op) => liveAgUiEvents(op) as AgUiEvent[]);
}

/** AG-UI interrupts for what a run waits for (RUN_FINISHED outcome `interrupt`). */
export function toAgUiInterrupts(
  pending: readonly PendingInterrupt[],
  responseSchemaOf: (tool: string) => Record<string, unknown> | undefined,
): Interrupt[] {
  return pending.map((p) => {
    if (p.kind === 'question')
      return {
        id: p.id,
        reason: 'input_required',
        message: p.question,
        responseSchema: answerSchema(p, p.tool ? responseSchemaOf(p.tool) : undefined),
        metadata: { questionId: p.questionId },
      };
    if (p.kind === 'budget') return budgetInterrupt(p);
    const { review } = p;
    const allowed = allowedDecisions(review);
    const argsSchema = responseSchemaOf(review.name);
    return {
      id: p.id,
      reason: 'tool_approval',
      toolCallId: review.toolCallId,
      message: review.description ?? `Review the call to ${review.name}.`,
      responseSchema: decisionSchema(allowed, argsSchema),
      metadata: {
        tool: review.name,
        args: review.args,
        argsHash: review.argsHash,
        allowed,
        // What a workspace write or patch would change: a unified diff (docs/workspaces.md).
        ...(review.change !== undefined && { change: review.change }),
      },
    };
  });
}

/** A budget request as an AG-UI interrupt: resolved with `{ decision }` (extend or stop); cancelled stops the run. */
function budgetInterrupt(p: Extract<PendingInterrupt, { kind: 'budget' }>): Interrupt {
  const { request } = p;
  const spent =
    request.limit === 'tokens'
      ? `${request.usedTokens} of ${request.maxTokens} tokens`
      : `${request.usedCostUsd} of ${request.maxCostUsd} (cost)`;
  return {
    id: p.id,
    reason: 'budget_exhausted',
    message: `The run's ${request.limit === 'tokens' ? 'token' : 'cost'} budget is used up (${spent}): extend it or stop the run.`,
    responseSchema: budgetDecisionSchema(request),
    metadata: {
      requestId: request.id,
      request,
      ...(p.usage && { usage: p.usage }),
      ...(p.extended && { extended: p.extended }),
    },
  };
}

/** A reasoning span of one message (AG-UI 1.0 REASONING_*); none for no reasoning or one the client has. */
function reasoningMessage(id: string, reasoning: string, context: AgUiWindowContext): AgUiEvent[] {
  if (!reasoning || context.messages.has(id)) return [];
  return [
    { type: EventType.REASONING_START, messageId: id },
    { type: EventType.REASONING_MESSAGE_START, messageId: id, role: 'reasoning' },
    { type: EventType.REASONING_MESSAGE_CONTENT, messageId: id, delta: reasoning },
    { type: EventType.REASONING_MESSAGE_END, messageId: id },
    { type: EventType.REASONING_END, messageId: id },
  ] as AgUiEvent[];
}

function textMessage(id: string, text: string, context?: AgUiWindowContext): AgUiEvent[] {
  if (context?.messages.has(id)) return [];
  return [
    { type: EventType.TEXT_MESSAGE_START, messageId: id, role: 'assistant' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: id, delta: text },
    { type: EventType.TEXT_MESSAGE_END, messageId: id },
  ];
}

function toolCall(toolCallId: string, name: string, args: unknown, context: AgUiWindowContext): AgUiEvent[] {
  if (context.opened.has(toolCallId)) return [];
  context.opened.add(toolCallId);
  return [
    { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: name },
    ...(args === undefined
      ? []
      : [{ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify(args) } as AgUiEvent]),
    { type: EventType.TOOL_CALL_END, toolCallId },
  ];
}

/**
 * The schema of an answer to `question`: `{ answer }`, text or an object of exactly the missing
 * fields, each with the tool's own JSON Schema for it (type, pattern/format, enum, description)
 * and the example input's value as an example. The run's Update validator holds answers to it.
 */
export function answerSchema(
  question: Extract<PendingInterrupt, { kind: 'question' }>,
  toolSchema: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const text = { type: 'string', minLength: 1 };
  const missing = question.missingFields;
  if (!missing?.length) return { type: 'object', properties: { answer: text }, required: ['answer'] };
  const properties = Object.fromEntries(
    missing.map((field) => {
      const own = fieldSchema(toolSchema, field) ?? {};
      const example = exampleOf(question.exampleInput, field);
      return [field, { ...own, ...(example !== undefined && { examples: [example] }) }];
    }),
  );
  const fields = { type: 'object', properties, required: [...missing], additionalProperties: false };
  return { type: 'object', properties: { answer: { anyOf: [text, fields] } }, required: ['answer'] };
}

/** The JSON Schema of a (dotted) field of an object schema. */
function fieldSchema(schema: Record<string, unknown> | undefined, path: string): Record<string, unknown> | undefined {
  let at: unknown = schema;
  for (const key of path.split('.')) {
    const properties = (at as { properties?: Record<string, unknown> } | undefined)?.properties;
    if (!properties || !Object.hasOwn(properties, key)) return undefined;
    at = properties[key];
  }
  return typeof at === 'object' && at !== null ? (at as Record<string, unknown>) : undefined;
}

function exampleOf(example: Readonly<Record<string, unknown>> | undefined, path: string): unknown {
  let at: unknown = example;
  for (const key of path.split('.')) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** The JSON Schema of the decisions a review allows (shared/human-input/review-decision.ts), an edit's args held to the tool's. */
function decisionSchema(
  allowed: readonly ReviewDecisionType[],
  argsSchema: Record<string, unknown> | undefined,
): Record<string, unknown> {
  return reviewDecisionJsonSchema(allowed, { args: argsSchema ?? { type: 'object' } });
}
