/**
 * How a scripted model streams a reply it has already decided: the text, then each call's
 * argument text, cut into pieces handed to `onDelta` with a configurable wait between them, and
 * hooks a test uses to hold the answer at a piece (until a reader has seen the first one) or to
 * make it fail there (a worker dying mid-stream). Worker-side and tests.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ModelDelta } from '../shared/live/model-delta.js';
import type { ModelResponse } from '../shared/model/model-response.js';
import type { ScriptContext } from './script-steps.js';

export interface ScriptedStreaming {
  /** Pieces the text (and each call's arguments) is cut into; default 8. */
  readonly pieces?: number;
  /** Wait before each piece after the first, in ms; default 0. */
  readonly intervalMs?: number;
  /**
   * Awaited before piece `index` (0-based, over the whole reply) is sent: hold the reply there, or
   * throw (e.g. a `ModelServerError`) to fail the call mid-stream.
   */
  readonly before?: (index: number, context: ScriptContext) => Promise<void> | void;
}

/** Hands `response` to `onDelta` piece by piece. */
export async function streamScripted(
  response: ModelResponse,
  onDelta: (delta: ModelDelta) => void,
  context: ScriptContext,
  options: ScriptedStreaming = {},
  signal?: AbortSignal,
): Promise<void> {
  const deltas: ModelDelta[] = [
    ...cut(response.text, options.pieces ?? 8).map((text): ModelDelta => ({ kind: 'text', text })),
    ...response.toolCalls.flatMap((call) =>
      cut(call.arguments, options.pieces ?? 8).map(
        (args): ModelDelta => ({ kind: 'tool-args', toolCallId: call.id ?? call.name, name: call.name, args }),
      ),
    ),
  ];
  for (const [index, delta] of deltas.entries()) {
    if (index > 0 && options.intervalMs) await sleep(options.intervalMs, undefined, signal ? { signal } : {});
    await options.before?.(index, context);
    signal?.throwIfAborted();
    onDelta(delta);
  }
}

/** `text` in `n` pieces of near-equal length (fewer when it is shorter). */
export function cut(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, n)));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
