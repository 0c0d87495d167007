/**
 * What a plan adds to the model's transcript: the reply, the batch's results in call order as the
 * model sees them (each tied to the provider's call id), then Cairn's notes as one user message.
 */
import { describe, expect, it } from 'vitest';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import { toModelView } from '../shared/tools/model-view.js';
import type { ToolCall } from '../shared/tools/tool-call.js';
import type { Plan } from './plan.js';
import { transcriptEntries } from './transcript-entries.js';
import { failed, ok, start, toolCall } from './testing.js';

const plan = (extra: Partial<Plan>): Plan => ({ ...start(), record: [], notes: [], ...extra });
const search: ToolCall = { ...toolCall('search_orders', { q: 'x' }, '1.1'), providerCallId: 'call_abc' };
const refund = toolCall('refund', { id: 1 }, '1.2');

describe('transcriptEntries', () => {
  it('adds nothing for a plan without reply, results or notes', () => {
    expect(transcriptEntries(plan({}), [])).toEqual([]);
  });

  it("records the reply, then its results in the plan's order with the provider's call ids, then the notes", () => {
    const entries = transcriptEntries(
      plan({
        reply: { text: 'Looking.', toolCalls: [search, refund] },
        record: [failed(refund, 'timeout'), ok(search, { n: 1 })],
        notes: ['Note one.', 'Note two.'],
      }),
      [],
    );
    expect(entries).toEqual([
      { role: 'assistant', content: 'Looking.', toolCalls: [search, refund] },
      { role: 'tool', toolCallId: '1.2', name: 'refund', content: toModelView(failed(refund, 'timeout')) },
      { role: 'tool', toolCallId: '1.1', providerCallId: 'call_abc', name: 'search_orders', content: { n: 1 } },
      { role: 'user', content: '[cairn] Note one. Note two.' },
    ]);
  });

  it('results arriving after the reply answer the last calls the model made', () => {
    const transcript: TranscriptMessage[] = [
      { role: 'assistant', content: '', toolCalls: [{ ...search, providerCallId: 'old' }] },
      { role: 'tool', toolCallId: '1.1', name: 'search_orders', content: {} },
      { role: 'assistant', content: '', toolCalls: [search] },
      { role: 'user', content: '[cairn] waiting' },
    ];
    expect(transcriptEntries(plan({ record: [ok(search)] }), transcript)).toEqual([
      { role: 'tool', toolCallId: '1.1', providerCallId: 'call_abc', name: 'search_orders', content: { done: true } },
    ]);
  });

  it('a result without a matching call, or without any reply before it, has no provider call id', () => {
    const orphan = toolCall('lookup', {}, '9.9');
    for (const transcript of [[], [{ role: 'user', content: 'hi' }]] as TranscriptMessage[][]) {
      expect(transcriptEntries(plan({ record: [ok(orphan)] }), transcript)).toEqual([
        { role: 'tool', toolCallId: '9.9', name: 'lookup', content: { done: true } },
      ]);
    }
  });

  it('a text answer is an assistant message without calls; notes alone are one user message', () => {
    expect(transcriptEntries(plan({ reply: { text: 'Done.', toolCalls: [] } }), [])).toEqual([
      { role: 'assistant', content: 'Done.', toolCalls: [] },
    ]);
    expect(transcriptEntries(plan({ notes: ['Only this.'] }), [])).toEqual([
      { role: 'user', content: '[cairn] Only this.' },
    ]);
  });

  it("what a person said goes to the model as their own messages, after Cairn's notes", () => {
    expect(transcriptEntries(plan({ notes: ['Note.'], said: ['Also check B-2.', 'Thanks.'] }), [])).toEqual([
      { role: 'user', content: '[cairn] Note.' },
      { role: 'user', content: 'Also check B-2.' },
      { role: 'user', content: 'Thanks.' },
    ]);
  });
});
