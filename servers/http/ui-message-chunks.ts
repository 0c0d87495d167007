/**
 * The one mapping from a Cairn run event to the AI SDK's UI message chunks (the `ai` package's
 * `UIMessageChunk`, what `useChat` reads). Tool calls are dynamic tool parts (the frontend need
 * not know the agent's tools); a review is a `tool-approval-request` whose `approvalId` is the
 * review's interrupt id (tool call id + args hash), answered by an approval response in the next
 * request; a question is a `data-cairn-question` part answered by the next user message. Live
 * deltas stream a model call as one step (`text-delta`, `tool-input-delta` per batch); a retried
 * attempt sends `reset-step` first, which takes the stale attempt's parts out of the message; a
 * turn that streamed is not sent again whole. Node-only (client side).
 *
 * | Cairn event | UI message chunks |
 * | `model_delta` | start-step (first), text-start/-delta, tool-input-start/-delta (dynamic) |
 * | `model_reset` | text-end of the stale attempt, reset-step |
 * | `model_turn` streamed | text-end, finish-step |
 * | `model_turn` | start-step, text-start/-delta/-end, finish-step |
 * | `tool_start` | tool-input-available |
 * | `tool_end` | tool-output-available, or tool-output-error (code, message, hint) |
 * | refused call's `tool_end` | tool-input-error |
 * | `review` | tool-input-available + tool-approval-request |
 * | `question` | data-cairn-question |
 * | `decision` | data-cairn-decision |
 * | `finish` | text (the answer) |
 * | others | data-cairn-<type> |
 */
import type { UIMessageChunk } from 'ai';
import { toUiMessageChunks as liveUiChunks, type LiveOp } from './live-deltas.js';
import type { RunEventItem } from '../../client/run-events.js';
import type { LiveEvent } from '../../shared/live/model-delta.js';
import { flushesHeld, messageId } from './agui-events.js';
import { reviewInterruptId } from './interrupts.js';
import { isLiveEvent, LiveWindow } from './live-window.js';
import { scoped } from './run-scope.js';
import { thinkingOf, visibleText } from '../../shared/model/think-block.js';

export interface UiWindowContext {
  /** Tool calls whose input part the client has (sent by this window or an earlier one). */
  readonly opened: Set<string>;
  /** A person cancelled the run (a `human` cancel event came). */
  cancelled: boolean;
  held?: { readonly id: string; readonly text: string };
  /** The live deltas this window streams, and whether their step is open. */
  readonly live: LiveWindow;
  step: boolean;
  /** The run's scope: streamed tool calls carry it as the run's events do (run-scope.ts). */
  readonly scope?: string | undefined;
}

export function uiWindowContext(seen?: { readonly toolCalls: Iterable<string> }, scope?: string): UiWindowContext {
  return { opened: new Set(seen?.toolCalls ?? []), cancelled: false, live: new LiveWindow(), step: false, scope };
}

type Chunk = UIMessageChunk;

/** `event`: a run event, or a live event from the window's live source. */
export function toUiMessageChunks(event: RunEventItem | LiveEvent, context: UiWindowContext): Chunk[] {
  const out: Chunk[] = [];
  if (flushesHeld(event)) out.push(...flushHeld(context));
  if (isLiveEvent(event)) return [...out, ...live(context.live.ops(event), context)];
  switch (event.type) {
    case 'model_turn': {
      // A reasoning model's thoughts (think blocks in the turn's text) are reasoning parts, never text.
      const shown = event.text === undefined ? undefined : visibleText(event.text);
      const thought = event.text ? thinkingOf(event.text) : '';
      const end = context.live.endTurn(event.error !== undefined, shown);
      out.push(...live(end.ops, context), ...endStep(context));
      if (thought)
        out.push({ type: 'start-step' }, ...reasoning(`${messageId(event)}-reasoning`, thought), {
          type: 'finish-step',
        });
      if (event.error) out.push({ type: 'data-cairn-model-error', data: event.error });
      else if (end.streamed)
        break; // its text went out as deltas
      else if (shown && (event.toolCalls?.length ?? 0) > 0)
        out.push({ type: 'start-step' }, ...text(messageId(event), shown), { type: 'finish-step' });
      else if (shown) context.held = { id: messageId(event), text: shown };
      break;
    }
    case 'tool_start':
      out.push(...toolInput(event.toolCallId, event.name, event.args, context));
      break;
    case 'review':
      for (const review of event.reviews) {
        out.push(...toolInput(review.toolCallId, review.name, review.args, context));
        out.push({
          type: 'tool-approval-request',
          approvalId: reviewInterruptId(review),
          toolCallId: review.toolCallId,
          ...(review.description && { reason: review.description }),
        });
      }
      break;
    case 'tool_end': {
      const result = event.result as {
        status?: string;
        error?: { code?: string; message?: string };
        retryHint?: unknown;
        feedback?: unknown;
      };
      if (!context.opened.has(event.toolCallId) && result.status !== 'ok') {
        // A call the workflow refused never started (or started in an earlier window): one error part.
        context.opened.add(event.toolCallId);
        out.push({
          type: 'tool-input-error',
          toolCallId: event.toolCallId,
          toolName: event.name,
          input: event.args ?? null,
          dynamic: true,
          errorText: errorText(result),
        });
        break;
      }
      out.push(...toolInput(event.toolCallId, event.name, null, context));
      if (result.status === 'ok')
        out.push({ type: 'tool-output-available', toolCallId: event.toolCallId, output: event.result, dynamic: true });
      else
        out.push({
          type: 'tool-output-error',
          toolCallId: event.toolCallId,
          errorText: errorText(result),
          dynamic: true,
        });
      break;
    }
    case 'question':
      out.push({
        type: 'data-cairn-question',
        id: event.clarification.id,
        data: { ...event.clarification, ...(event.child && { child: event.child }) },
      });
      break;
    case 'decision':
      out.push({
        type: 'data-cairn-decision',
        id: `decision-${event.offset}`,
        data: { seq: event.seq, action: event.action, detail: event.detail },
      });
      break;
    case 'finish': {
      const id = context.held?.id ?? messageId(event);
      delete context.held;
      if (event.answer && !context.live.streamedAnswer(event.answer))
        out.push({ type: 'start-step' }, ...text(id, event.answer), { type: 'finish-step' });
      break;
    }
    default: {
      if (event.type === 'human' && event.kind === 'cancel') context.cancelled = true;
      const { type, offset, ...data } = event;
      // An id per event: a part the client has (a replay) is replaced, never repeated.
      out.push({ type: `data-cairn-${type.replace('_', '-')}`, id: `${type}-${offset}`, data });
    }
  }
  return out;
}

/** What the window still holds back or has open, when it ends without a `finish` event. */
export function flushUi(context: UiWindowContext): Chunk[] {
  return [...live(context.live.close(), context), ...endStep(context), ...flushHeld(context)];
}

function flushHeld(context: UiWindowContext): Chunk[] {
  const held = context.held;
  delete context.held;
  return held ? [{ type: 'start-step' }, ...text(held.id, held.text), { type: 'finish-step' }] : [];
}

/**
 * Live ops as chunks: a model call's parts in one step, so a reset (`reset-step`) takes out
 * exactly the stale attempt's parts. Tool parts are dynamic, as `tool_start`'s are.
 */
function live(ops: readonly LiveOp[], context: UiWindowContext): Chunk[] {
  const out: Chunk[] = [];
  for (const own of ops) {
    const op = own.op.startsWith('tool-') ? { ...own, id: scoped(own.id, context.scope) } : own;
    if (op.op === 'reset') {
      if (context.step) out.push({ type: 'reset-step' });
      continue;
    }
    if ((op.op === 'text-start' || op.op === 'tool-start') && !context.step) {
      context.step = true;
      out.push({ type: 'start-step' });
    }
    for (const chunk of liveUiChunks(op))
      out.push((chunk.type === 'tool-input-start' ? { ...chunk, dynamic: true } : chunk) as Chunk);
  }
  return out;
}

function endStep(context: UiWindowContext): Chunk[] {
  if (!context.step) return [];
  context.step = false;
  return [{ type: 'finish-step' }];
}

function text(id: string, value: string): Chunk[] {
  return [
    { type: 'text-start', id },
    { type: 'text-delta', id, delta: value },
    { type: 'text-end', id },
  ];
}

/** A reasoning part of the message, whole (the UI stream's reasoning-start/delta/end). */
function reasoning(id: string, value: string): Chunk[] {
  return [
    { type: 'reasoning-start', id },
    { type: 'reasoning-delta', id, delta: value },
    { type: 'reasoning-end', id },
  ];
}

function toolInput(toolCallId: string, toolName: string, input: unknown, context: UiWindowContext): Chunk[] {
  if (context.opened.has(toolCallId)) return [];
  context.opened.add(toolCallId);
  return [{ type: 'tool-input-available', toolCallId, toolName, input, dynamic: true }];
}

/** A failed ToolResult as one line: code, message, and the hint as JSON (the part's `errorText`). */
function errorText(result: {
  status?: string;
  error?: { code?: string; message?: string };
  retryHint?: unknown;
  feedback?: unknown;
}): string {
  const head = result.error
    ? `${result.error.code}: ${result.error.message}`
    : `${result.status}: ${JSON.stringify(result.feedback ?? null)}`;
  return result.retryHint ? `${head} (hint: ${JSON.stringify(result.retryHint)})` : head;
}
