/** A final turn's text is said once, whole, even when the planner's decision comes before `finish`. */
import { describe, expect, it } from 'vitest';
import type { RunEventItem } from '../../client/run-events.js';
import { agUiWindowContext, toAgUiEvents } from './agui-events.js';
import { toUiMessageChunks, uiWindowContext } from './ui-message-chunks.js';

const long = 'All done. '.repeat(150); // longer than a model_turn event's 1,000 characters of text
const events: RunEventItem[] = [
  { type: 'model_turn', at: 1, turn: 1, offset: 0, text: long.slice(0, 1_000), toolCalls: [] },
  { type: 'decision', at: 2, turn: 1, offset: 1, seq: 1, action: 'finish', detail: 'The model answered.' },
  { type: 'finish', at: 3, turn: 1, offset: 2, answer: long, reason: null, toolCalls: 0 },
];

describe('the answer of a run whose last turn is followed by a decision', () => {
  it('goes out once over AG-UI, whole', () => {
    const context = agUiWindowContext();
    const texts = events.flatMap((e) => toAgUiEvents(e, context)).filter((e) => e.type === 'TEXT_MESSAGE_CONTENT');
    expect(texts.map((e) => (e as { delta: string }).delta)).toEqual([long]);
  });

  it('goes out once over the UI message stream, whole', () => {
    const context = uiWindowContext();
    const deltas = events.flatMap((e) => toUiMessageChunks(e, context)).filter((c) => c.type === 'text-delta');
    expect(deltas.map((c) => (c as { delta: string }).delta)).toEqual([long]);
  });

  it('a turn followed by a tool call is still said before it', () => {
    const context = agUiWindowContext();
    const out = [
      { type: 'model_turn', at: 1, turn: 1, offset: 0, text: 'Let me check.', toolCalls: [] },
      { type: 'tool_start', at: 2, turn: 1, offset: 1, toolCallId: '1.1', name: 'lookup', args: {} },
    ].flatMap((e) => toAgUiEvents(e as RunEventItem, context));
    expect(out.map((e) => e.type)).toEqual([
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
    ]);
  });
});
