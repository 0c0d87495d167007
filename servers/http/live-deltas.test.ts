/** The live delta mapping: AG-UI events and AI SDK UI chunks, resets, stale attempts, turn ends. */
import { describe, expect, it } from 'vitest';
import { EventType } from '@ag-ui/core';
import { readUIMessageStream, type UIMessageChunk } from 'ai';
import type { LiveEvent } from '../../shared/live/model-delta.js';
import { LiveDeltas, liveText, toAgUiEvents, toUiMessageChunks } from './live-deltas.js';

const base = { at: 0, turn: 2, call: 'model:2:1' };
const delta = (
  attempt: number,
  seq: number,
  text?: string,
  toolArgs?: { toolCallId: string; name: string; args: string }[],
): LiveEvent => ({
  ...base,
  type: 'model_delta',
  attempt,
  seq,
  ...(text !== undefined && { text }),
  ...(toolArgs && { toolArgs }),
});

describe('LiveDeltas', () => {
  it('maps text and tool-argument deltas to AG-UI events, numbering calls as Cairn does', () => {
    const live = new LiveDeltas('wf');
    const ops = [
      ...live.ops(delta(1, 1, 'Hel')),
      ...live.ops(delta(1, 2, 'lo', [{ toolCallId: 'call_a', name: 'lookup_order', args: '{"orderId":' }])),
      ...live.ops(delta(1, 3, undefined, [{ toolCallId: 'call_a', name: 'lookup_order', args: '"A-1"}' }])),
    ];
    const end = live.endTurn(2);
    expect(end.streamed).toBe(true);
    expect([...ops, ...end.ops].flatMap(toAgUiEvents)).toEqual([
      { type: EventType.TEXT_MESSAGE_START, messageId: 'wf:model:2:1#1', role: 'assistant' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'wf:model:2:1#1', delta: 'Hel' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'wf:model:2:1#1', delta: 'lo' },
      {
        type: EventType.TOOL_CALL_START,
        toolCallId: '2.1',
        toolCallName: 'lookup_order',
        parentMessageId: 'wf:model:2:1#1',
      },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: '2.1', delta: '{"orderId":' },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: '2.1', delta: '"A-1"}' },
      { type: EventType.TEXT_MESSAGE_END, messageId: 'wf:model:2:1#1' },
      { type: EventType.TOOL_CALL_END, toolCallId: '2.1' },
    ]);
    expect(live.endTurn(3)).toEqual({ ops: [], streamed: false });
  });

  it('a reset ends the stale message, older attempts are dropped, and the text is the retry alone', async () => {
    const events: LiveEvent[] = [
      delta(1, 1, 'The ord'),
      { ...base, type: 'model_reset', attempt: 2 },
      delta(1, 2, 'er A-'),
      delta(2, 1, 'The order '),
      delta(2, 2, 'shipped.'),
    ];
    const live = new LiveDeltas('wf');
    const chunks: UIMessageChunk[] = [
      { type: 'start' },
      ...events.flatMap((e) => live.ops(e)).flatMap(toUiMessageChunks),
      ...live.endTurn(2).ops.flatMap(toUiMessageChunks),
      { type: 'finish' },
    ];
    expect(chunks.filter((c) => c.type === 'data-cairn-reset')).toEqual([
      { type: 'data-cairn-reset', data: { messageId: 'wf:model:2:1#1' }, transient: true },
    ]);
    const stream = new ReadableStream<UIMessageChunk>({
      start: (c) => {
        for (const x of chunks) c.enqueue(x);
        c.close();
      },
    });
    let last;
    for await (const message of readUIMessageStream({ stream })) last = message;
    // The UI message holds the stale attempt's part and the retry's; the retry's is whole and unrepeated.
    const texts = last!.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
    expect(texts).toEqual(['The ord', 'The order shipped.']);
    expect(liveText(events).get('model:2:1')).toBe('The order shipped.');
  });
});
