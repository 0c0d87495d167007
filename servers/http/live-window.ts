/**
 * A response window's view of a run's live deltas (`model_delta` / `model_reset`), shared by the
 * AG-UI and the AI SDK UI stream mappings: `LiveDeltas` (servers/http/live-deltas.ts) turns them into
 * ops; this adds what a window needs on top. An attempt whose first delta the window did not see
 * (it opened mid-call) is not streamed: its turn's text goes out whole, as without streaming. A
 * turn that streamed remembers the text its deltas added up to, so the `finish` that repeats it
 * is not sent again, and its recorded text settles what its deltas missed. A model call that failed
 * for good retracts its partial text. Node-only.
 */
import { LiveDeltas, type LiveOp } from './live-deltas.js';
import type { LiveEvent } from '../../shared/live/model-delta.js';
import { visibleText } from '../../shared/model/think-block.js';

/** The narrator cuts a `finish` answer to this many characters (workflows/run-narrator.ts). */
const FINISH_ANSWER_CHARS = 4_000;
/** A `model_turn` event's text is cut to this many characters (workflows/run-events.ts). */
const TURN_TEXT_CHARS = 1_000;

/** Streamed text that is the recorded reply: the same, the same but for think blocks, or longer than its cut. */
function sameText(streamed: string, recorded: string): boolean {
  return (
    streamed === recorded ||
    visibleText(streamed) === visibleText(recorded) ||
    (recorded.length >= TURN_TEXT_CHARS && streamed.startsWith(recorded))
  );
}

export class LiveWindow {
  #deltas?: LiveDeltas;
  /** Attempts (`call#attempt`) seen, and those that began before the window opened. */
  readonly #seen = new Set<string>();
  readonly #skipped = new Set<string>();
  /** Text so far per streamed message id, and the turns with a message open. */
  readonly #texts = new Map<string, string>();
  readonly #turns = new Set<number>();
  /** What the last model turn's deltas added up to, when it streamed. */
  #streamed?: string;

  /** The ops `event` adds. */
  ops(event: LiveEvent): LiveOp[] {
    const key = `${event.call}#${event.attempt}`;
    if (!this.#seen.has(key)) {
      this.#seen.add(key);
      if (event.type === 'model_delta' && event.seq > 1) this.#skipped.add(key);
    }
    if (this.#skipped.has(key)) return [];
    // Message ids carry the first delta's time: a thread's next run reuses call ids, never times.
    this.#deltas ??= new LiveDeltas(`m-${event.at.toString(36)}`);
    const ops = this.#deltas.ops(event);
    for (const op of ops) if (op.op === 'text-delta') this.#texts.set(op.id, (this.#texts.get(op.id) ?? '') + op.delta);
    if (ops.length > 0) this.#turns.add(event.turn);
    return ops;
  }

  /**
   * Closes what the model call opened when its `model_turn` event arrives (a run's model calls
   * come one at a time, so that is every open turn: the event's `turn` counts turns before it,
   * one less than its deltas'). `streamed`: its reply went out as deltas (send it not again). A
   * `failed` call's partial messages are reset: none is the reply. `recorded` (the event's text)
   * is the truth: deltas that fell short of it (their last batch lost, or later than the
   * `model_turn`, as can happen when they travel apart from the run's events) are finished with
   * the rest of it; ones that differ otherwise are reset and the text goes whole (`streamed` false).
   */
  endTurn(failed = false, recorded?: string): { ops: LiveOp[]; streamed: boolean } {
    const ops: LiveOp[] = [];
    let streamed = false;
    for (const turn of this.#turns) {
      const end = this.#deltas!.endTurn(turn);
      ops.push(...end.ops);
      streamed ||= end.streamed;
    }
    this.#turns.clear();
    const ended = ops.flatMap((op) => (op.op === 'text-end' ? [op.id] : []));
    let text = ended.map((id) => this.#texts.get(id) ?? '').join('');
    const reset = (id: string): LiveOp => ({ op: 'reset', id });
    if (!failed && streamed && recorded !== undefined && !sameText(text, recorded)) {
      const last = ended.at(-1);
      if (last !== undefined && recorded.startsWith(text) && recorded.length < TURN_TEXT_CHARS) {
        ops.splice(
          ops.findIndex((op) => op.op === 'text-end' && op.id === last),
          0,
          { op: 'text-delta', id: last, delta: recorded.slice(text.length) },
        );
        text = recorded;
      } else {
        ops.push(...ended.map(reset));
        streamed = false;
      }
    }
    this.#streamed = streamed && !failed ? text : undefined;
    if (failed) ops.push(...ended.map(reset));
    return { ops, streamed };
  }

  /** True when `answer` (a `finish` event's) is what the last model turn already streamed. */
  streamedAnswer(answer: string): boolean {
    return this.#streamed !== undefined && this.#streamed.slice(0, FINISH_ANSWER_CHARS) === answer;
  }

  /** Closes whatever is still open, when the window ends without the turn's `model_turn`. */
  close(): LiveOp[] {
    return this.endTurn().ops;
  }
}

export function isLiveEvent(event: { readonly type: string }): event is LiveEvent {
  return event.type === 'model_delta' || event.type === 'model_reset';
}
