/**
 * The context policy: the model's transcript stays within a budget however long the run, so a
 * model turn never outgrows the model's window or Temporal's payload limits, and what a run
 * carries into continue-as-new stays bounded. When the transcript is over `maxChars`, in order
 * until it fits:
 *   1. tool results of older turns become a short preview;
 *   2. the oldest turns are left out, whole (a model turn with its results and notes), and one
 *      note says so; these two go on to LOW_WATER_SLACK below `maxChars`, so the next turns fit
 *      without another rewrite;
 *   3. the same two inside the recent turns, never touching the newest one;
 *   4. the newest turn's tool results become previews.
 * The system prompt and the user's request (everything before the first model turn) always stay.
 * Iterative and linear in the transcript's length. Workflow-safe, deterministic.
 */
import type { ContextPolicy } from '../shared/agent/agent-policy.js';
import type { JsonValue } from '../shared/json/json.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';

/** The note that stands for the turns left out. */
export const LEFT_OUT_NOTE = '[cairn] Earlier turns were left out to keep this conversation within its context budget.';
const PREVIEW_CHARS = 500;
/** How far below `maxChars` older turns are trimmed once the transcript is over it, as a share of it. */
export const LOW_WATER_SLACK = 1 / 8;

/** The size the budget counts for one message: the characters of its JSON. */
export function messageSize(message: TranscriptMessage): number {
  return JSON.stringify(message).length;
}

export interface Fitted {
  readonly messages: TranscriptMessage[];
  readonly sizes: number[];
}

/** The transcript within `policy.maxChars`, or undefined when it already fits. `sizes[i]` is `messageSize(messages[i])`. */
export function fitContext(
  messages: readonly TranscriptMessage[],
  sizes: readonly number[],
  policy: ContextPolicy,
): Fitted | undefined {
  let total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= policy.maxChars) return undefined;
  const out: (TranscriptMessage | null)[] = [...messages];
  const outSizes = [...sizes];
  const starts = messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  const head = starts[0] ?? messages.length;
  const newest = starts.at(-1) ?? messages.length;
  const recent = starts.at(-policy.keepRecentTurns) ?? head;
  // Older turns go down to a low-water mark below the budget, so a long run rewrites its transcript
  // (a new epoch: the model activity reads it whole again) every few dozen turns, not every turn.
  let limit = policy.maxChars - Math.floor(policy.maxChars * LOW_WATER_SLACK);
  const fits = () => total <= limit;

  const trimResults = (from: number, to: number, longerThan: number) => {
    // `to` is a turn's first message (the model's) or the end, never a tool result.
    // Stryker disable next-line EqualityOperator: `i <= to` visits that message too, and skips it
    for (let i = from; i < to && !fits(); i++) {
      // Each range is trimmed before any turn in it is left out, so its messages are all there.
      const m = out[i]!;
      if (m.role !== 'tool' || outSizes[i]! <= longerThan) continue;
      const trimmed = { ...m, content: preview(m.content) };
      const size = messageSize(trimmed);
      if (size >= outSizes[i]!) continue;
      total -= outSizes[i]! - size;
      out[i] = trimmed;
      outSizes[i] = size;
    }
  };
  const dropTurns = (from: number, to: number) => {
    for (const [k, start] of starts.entries()) {
      // Whole turns only: a tool result without its call (or a call without its result) breaks providers.
      const end = starts[k + 1] ?? messages.length;
      if (fits() || end > to) break;
      // Turns before `from` were left out already, or stay.
      if (start < from) continue;
      for (let j = start; j < end; j++) {
        total -= outSizes[j]!;
        out[j] = null;
      }
    }
  };

  trimResults(head, recent, policy.oldResultChars);
  dropTurns(head, recent);
  // The recent turns give way only as far as the budget itself needs.
  limit = policy.maxChars;
  trimResults(recent, newest, policy.oldResultChars);
  dropTurns(recent, newest);
  trimResults(newest, messages.length, PREVIEW_CHARS);

  const kept: TranscriptMessage[] = [];
  const keptSizes: number[] = [];
  const dropped = out.some((m) => m === null);
  out.forEach((m, i) => {
    if (
      i === head &&
      dropped &&
      !(messages[head - 1]?.role === 'user' && messages[head - 1]!.content === LEFT_OUT_NOTE)
    ) {
      const note: TranscriptMessage = { role: 'user', content: LEFT_OUT_NOTE };
      kept.push(note);
      keptSizes.push(messageSize(note));
    }
    if (m !== null) {
      kept.push(m);
      keptSizes.push(outSizes[i]!);
    }
  });
  return { messages: kept, sizes: keptSizes };
}

/** A long value as the model sees it once trimmed: where it began and how long it was. */
function preview(content: JsonValue): JsonValue {
  const text = JSON.stringify(content);
  return { compacted: true, preview: text.slice(0, PREVIEW_CHARS), originalChars: text.length };
}
