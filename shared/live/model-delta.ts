/**
 * What a streaming model call says while it is still answering, and how those words travel on a
 * run's stream. A `ModelDelta` is one piece a provider sent (text, or a tool call's argument
 * text); a `LiveEvent` is a bounded batch of them as readers get it, or the reset a retried
 * attempt sends first so readers drop the partial text of the attempt that died. Deltas are a
 * preview: the turn's recorded reply (the `model_turn` event, the transcript) is the truth, and
 * equals what the deltas of its last attempt add up to. Workflow-safe, deterministic.
 */

/** One piece of a model's answer as it arrives. */
export type ModelDelta =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'tool-args'; readonly toolCallId: string; readonly name: string; readonly args: string };

/** A tool call's argument text that arrived in one batch. */
export interface ToolArgsDelta {
  readonly toolCallId: string;
  readonly name: string;
  readonly args: string;
}

/** The Workflow Streams publish Signal, and its argument as the protocol defines it. */
export const STREAM_PUBLISH_SIGNAL = '__temporal_workflow_stream_publish';
/**
 * Cairn's own publish, the same argument as an Update: Signals per run are capped on Cairn's
 * servers (a flood guard, runtime/embedded-server.ts), Updates are not, and an Update can refuse.
 */
export const STREAM_PUBLISH_UPDATE = 'cairn_stream_publish';
export interface PublishInput {
  readonly items: readonly { readonly topic: string; readonly data: string }[];
  readonly publisher_id: string;
  readonly sequence: number;
}
/** Items in one batch, and characters of wire data per item: a publisher's batches are small. */
export const MAX_PUBLISH_ITEMS = 64;
export const MAX_PUBLISH_ITEM_CHARS = 64_000;

/** The stream topics live events use (the run's own events use their `type`). */
export const LIVE_TOPICS = ['model_delta', 'model_reset'] as const;

interface LiveBase {
  /** When it was sent (the worker's clock), ms since the epoch. */
  readonly at: number;
  /** The model turn the reply will be, as its call id numbers it; its `model_turn` event's `turn` is one less (turns before it). */
  readonly turn: number;
  /** The model call: its activity id, e.g. `model:3:1`. */
  readonly call: string;
  /** The call's attempt, from 1. Deltas of an attempt older than the latest reset are stale. */
  readonly attempt: number;
}

/** A batch of deltas of one model call and attempt (`seq` numbers them from 1), or that attempt's reset. */
export type LiveEvent =
  | (LiveBase & {
      readonly type: 'model_delta';
      readonly seq: number;
      readonly text?: string;
      readonly toolArgs?: readonly ToolArgsDelta[];
    })
  | (LiveBase & { readonly type: 'model_reset' });

/** The turn a model call's activity id names (`model:<turn>:<n>`); 0 for ids from before they did. */
export function turnOfCall(call: string): number {
  const match = /^model:(\d+):/.exec(call);
  return match ? Number(match[1]) : 0;
}

/** True for the topic of a live event: the run drops them from what it carries into continue-as-new. */
export function isLiveTopic(topic: string): boolean {
  return (LIVE_TOPICS as readonly string[]).includes(topic);
}

/**
 * Folds deltas into batches of at most `maxChars` characters of text and arguments each: text is
 * concatenated, a tool call's argument pieces are joined per call in arrival order. A piece longer
 * than a batch is split across batches.
 */
export function batchDeltas(
  deltas: readonly ModelDelta[],
  maxChars: number,
): { text: string; toolArgs: ToolArgsDelta[] }[] {
  const batches: { text: string; toolArgs: ToolArgsDelta[] }[] = [];
  let current = { text: '', toolArgs: [] as ToolArgsDelta[] };
  let size = 0;
  const room = () => {
    if (size >= maxChars) {
      batches.push(current);
      current = { text: '', toolArgs: [] };
      size = 0;
    }
    return maxChars - size;
  };
  for (const delta of deltas) {
    let rest = delta.kind === 'text' ? delta.text : delta.args;
    while (rest.length > 0) {
      const piece = rest.slice(0, room());
      rest = rest.slice(piece.length);
      size += piece.length;
      if (delta.kind === 'text') current.text += piece;
      else {
        const last = current.toolArgs.at(-1);
        if (last?.toolCallId === delta.toolCallId)
          current.toolArgs[current.toolArgs.length - 1] = { ...last, args: last.args + piece };
        else current.toolArgs.push({ toolCallId: delta.toolCallId, name: delta.name, args: piece });
      }
    }
  }
  if (size > 0) batches.push(current);
  return batches;
}
