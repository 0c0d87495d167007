/**
 * A run's live deltas (shared/live/model-delta.ts) as the two chat protocols stream them: AG-UI
 * events (`TEXT_MESSAGE_START/CONTENT/END`, `TOOL_CALL_START/ARGS/END`) and AI SDK UI message
 * chunks (`text-start/delta/end`, `tool-input-start/delta`). One `LiveDeltas` per response stream:
 * it remembers which messages it opened, drops deltas of an attempt older than the latest reset,
 * and closes a turn's messages when the turn's `model_turn` event arrives, saying whether the turn
 * streamed (then its text must not be sent again). Pure: no I/O. Node-only (client side).
 *
 * Ids: a streamed message is `<prefix>:<call>#<attempt>` (a retried attempt is a new message; the
 * stale one ends with a `cairn.reset` custom event / `data-cairn-reset` chunk naming it). A tool
 * call is numbered as Cairn numbers it (`<turn>.<n>`, in the order the model started its calls),
 * so its later `tool_start`/`tool_end` events name the same call.
 */
import { EventType, type BaseEvent } from '@ag-ui/core';
import type { LiveEvent } from '../../shared/live/model-delta.js';

/** What a delta means to a chat client, before a protocol spells it. */
export type LiveOp =
  | { readonly op: 'text-start' | 'text-end'; readonly id: string }
  | { readonly op: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly op: 'tool-start'; readonly id: string; readonly name: string; readonly messageId: string }
  | { readonly op: 'tool-delta'; readonly id: string; readonly delta: string }
  | { readonly op: 'tool-end'; readonly id: string }
  | { readonly op: 'reset'; readonly id: string };

/**
 * The AI SDK UI message chunks (`UIMessageChunk` of `ai` 7) deltas become, spelled here because
 * client code does not import `ai`; servers/http/live-deltas.test.ts reads them with `readUIMessageStream`.
 */
export type LiveUiChunk =
  | { readonly type: 'text-start' | 'text-end'; readonly id: string }
  | { readonly type: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'tool-input-start'; readonly toolCallId: string; readonly toolName: string }
  | { readonly type: 'tool-input-delta'; readonly toolCallId: string; readonly inputTextDelta: string }
  | { readonly type: 'data-cairn-reset'; readonly data: { readonly messageId: string }; readonly transient: true };

interface Open {
  readonly turn: number;
  readonly messageId: string;
  text: boolean;
  readonly tools: Map<string, string>;
}

export class LiveDeltas {
  /** The latest attempt seen per call: older ones are stale. */
  readonly #attempts = new Map<string, number>();
  /** Messages opened and not yet closed, by `call#attempt`. */
  readonly #open = new Map<string, Open>();
  readonly #streamedTurns = new Set<number>();

  constructor(readonly prefix: string) {}

  /** What `event` adds; nothing for a stale attempt. */
  ops(event: LiveEvent): LiveOp[] {
    const latest = this.#attempts.get(event.call) ?? 0;
    if (event.attempt < latest) return [];
    const out: LiveOp[] = [];
    if (event.attempt > latest) {
      // A new attempt: whatever the older one opened is dropped.
      for (const [key, open] of this.#open)
        if (key.startsWith(`${event.call}#`)) out.push(...this.#close(key, open, true));
      this.#attempts.set(event.call, event.attempt);
    }
    if (event.type === 'model_reset') return out;
    const key = `${event.call}#${event.attempt}`;
    let open = this.#open.get(key);
    if (!open) {
      open = { turn: event.turn, messageId: `${this.prefix}:${key}`, text: false, tools: new Map() };
      this.#open.set(key, open);
    }
    this.#streamedTurns.add(event.turn);
    if (event.text) {
      if (!open.text) out.push({ op: 'text-start', id: open.messageId });
      open.text = true;
      out.push({ op: 'text-delta', id: open.messageId, delta: event.text });
    }
    for (const { toolCallId, name, args } of event.toolArgs ?? []) {
      let id = open.tools.get(toolCallId);
      if (id === undefined) {
        id = `${event.turn}.${open.tools.size + 1}`;
        open.tools.set(toolCallId, id);
        out.push({ op: 'tool-start', id, name, messageId: open.messageId });
      }
      if (args) out.push({ op: 'tool-delta', id, delta: args });
    }
    return out;
  }

  /** Closes what turn `turn` opened, when its `model_turn` event arrives; `streamed` when its text went out as deltas. */
  endTurn(turn: number): { ops: LiveOp[]; streamed: boolean } {
    const ops: LiveOp[] = [];
    for (const [key, open] of this.#open) if (open.turn === turn) ops.push(...this.#close(key, open, false));
    const streamed = this.#streamedTurns.delete(turn);
    return { ops, streamed };
  }

  #close(key: string, open: Open, reset: boolean): LiveOp[] {
    this.#open.delete(key);
    const ops: LiveOp[] = [];
    if (open.text) ops.push({ op: 'text-end', id: open.messageId });
    for (const id of open.tools.values()) ops.push({ op: 'tool-end', id });
    if (reset) ops.push({ op: 'reset', id: open.messageId });
    return ops;
  }
}

/** An op as AG-UI events. */
export function toAgUiEvents(op: LiveOp): BaseEvent[] {
  switch (op.op) {
    case 'text-start':
      return [{ type: EventType.TEXT_MESSAGE_START, messageId: op.id, role: 'assistant' } as BaseEvent];
    case 'text-delta':
      return [{ type: EventType.TEXT_MESSAGE_CONTENT, messageId: op.id, delta: op.delta } as BaseEvent];
    case 'text-end':
      return [{ type: EventType.TEXT_MESSAGE_END, messageId: op.id } as BaseEvent];
    case 'tool-start':
      return [
        {
          type: EventType.TOOL_CALL_START,
          toolCallId: op.id,
          toolCallName: op.name,
          parentMessageId: op.messageId,
        } as BaseEvent,
      ];
    case 'tool-delta':
      return [{ type: EventType.TOOL_CALL_ARGS, toolCallId: op.id, delta: op.delta } as BaseEvent];
    case 'tool-end':
      return [{ type: EventType.TOOL_CALL_END, toolCallId: op.id } as BaseEvent];
    case 'reset':
      return [{ type: EventType.CUSTOM, name: 'cairn.reset', value: { messageId: op.id } } as BaseEvent];
  }
}

/** An op as AI SDK UI message chunks (a tool call's input ends with its `tool_start` event, as `tool-input-available`). */
export function toUiMessageChunks(op: LiveOp): LiveUiChunk[] {
  switch (op.op) {
    case 'text-start':
      return [{ type: 'text-start', id: op.id }];
    case 'text-delta':
      return [{ type: 'text-delta', id: op.id, delta: op.delta }];
    case 'text-end':
      return [{ type: 'text-end', id: op.id }];
    case 'tool-start':
      return [{ type: 'tool-input-start', toolCallId: op.id, toolName: op.name }];
    case 'tool-delta':
      return [{ type: 'tool-input-delta', toolCallId: op.id, inputTextDelta: op.delta }];
    case 'tool-end':
      return [];
    case 'reset':
      return [{ type: 'data-cairn-reset', data: { messageId: op.id }, transient: true }];
  }
}

/** The text each model call's deltas add up to (its latest attempt), by call: what the turn's reply must equal. */
export function liveText(events: readonly { readonly type: string }[]): Map<string, string> {
  const live = new LiveDeltas('');
  const texts = new Map<string, string>();
  for (const event of events) {
    if (event.type !== 'model_delta' && event.type !== 'model_reset') continue;
    const e = event as LiveEvent;
    for (const op of live.ops(e)) {
      if (op.op === 'reset' || op.op === 'text-start') texts.set(e.call, '');
      if (op.op === 'text-delta') texts.set(e.call, (texts.get(e.call) ?? '') + op.delta);
    }
  }
  return texts;
}
