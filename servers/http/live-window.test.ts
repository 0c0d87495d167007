/**
 * A model_turn's recorded text settles what the window's deltas missed: deltas that travel apart
 * from the run's events (Redis) may lose a batch or come after the turn is recorded. The window
 * never says text twice: a short stream is finished with the rest, a differing one is taken back.
 */
import { describe, expect, it } from 'vitest';
import type { LiveEvent } from '../../shared/live/model-delta.js';
import type { RunEventItem } from '../../client/run-events.js';
import { agUiWindowContext, toAgUiEvents } from './agui-events.js';
import { toUiMessageChunks, uiWindowContext } from './ui-message-chunks.js';

const REPLY = 'Shipped on Monday.';
const delta = (seq: number, text: string): LiveEvent => ({
  type: 'model_delta',
  at: 5,
  turn: 1,
  call: 'model:1:1',
  attempt: 1,
  seq,
  text,
});
const end: RunEventItem[] = [
  { type: 'model_turn', at: 6, turn: 0, offset: 3, text: REPLY, toolCalls: [] },
  { type: 'finish', at: 7, turn: 1, offset: 4, answer: REPLY, reason: null, toolCalls: 0 },
];

function agUi(deltas: LiveEvent[]) {
  const context = agUiWindowContext();
  return [...deltas, ...end]
    .flatMap((e) => toAgUiEvents(e, context))
    .map((e) => e as unknown as { type: string; delta?: string; name?: string });
}

describe('a streamed turn against its recorded text', () => {
  it('deltas that fell short (their last batch lost or late) are finished with the rest, once', () => {
    const out = agUi([delta(1, 'Shipped '), delta(2, 'on ')]);
    expect(out.flatMap((e) => (e.type === 'TEXT_MESSAGE_CONTENT' ? [e.delta] : [])).join('')).toBe(REPLY);
    expect(out.filter((e) => e.type === 'TEXT_MESSAGE_START')).toHaveLength(1);
    expect(out.filter((e) => e.type === 'CUSTOM')).toEqual([]);
  });

  it('deltas that differ (a batch lost in the middle) are taken back and the text goes whole', () => {
    const out = agUi([delta(1, 'Shipped '), delta(3, 'Monday.')]);
    expect(out.filter((e) => e.type === 'CUSTOM').map((e) => e.name)).toEqual(['cairn.reset']);
    expect(out.flatMap((e) => (e.type === 'TEXT_MESSAGE_CONTENT' ? [e.delta] : [])).at(-1)).toBe(REPLY);
    const context = uiWindowContext();
    const chunks = [delta(1, 'Shipped '), delta(3, 'Monday.'), ...end].flatMap((e) => toUiMessageChunks(e, context));
    const types = chunks.map((c) => c.type);
    expect(types.indexOf('reset-step')).toBeGreaterThan(-1);
    expect(
      chunks.slice(types.indexOf('reset-step')).flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])),
    ).toEqual([REPLY]);
  });
});
