/** The context policy keeps the model's transcript within its budget, oldest first, whole turns only. */
import { describe, expect, it } from 'vitest';
import type { ContextPolicy } from '../shared/agent-policy.js';
import type { TranscriptMessage } from '../shared/transcript.js';
import { LEFT_OUT_NOTE, fitContext, messageSize } from './context-window.js';

const prompt: TranscriptMessage[] = [
  { role: 'system', content: 'You are a test agent.' },
  { role: 'user', content: 'Look up orders.' },
];

/** Turn n: the model calls lookup, the result is `chars` long. */
function turn(n: number, chars: number): TranscriptMessage[] {
  return [
    { role: 'assistant', content: '', toolCalls: [{ toolCallId: `${n}.1`, name: 'lookup', args: { n } }] },
    { role: 'tool', toolCallId: `${n}.1`, name: 'lookup', content: { order: n, notes: 'x'.repeat(chars) } },
  ];
}

function fit(messages: TranscriptMessage[], policy: ContextPolicy) {
  return fitContext(messages, messages.map(messageSize), policy);
}

const size = (messages: readonly TranscriptMessage[]) => messages.reduce((sum, m) => sum + messageSize(m), 0);
const policy: ContextPolicy = { maxChars: 20_000, keepRecentTurns: 2, oldResultChars: 500 };

describe('fitContext', () => {
  it('leaves a transcript within budget alone', () => {
    expect(fit([...prompt, ...turn(1, 100)], policy)).toBeUndefined();
  });

  it('first turns old tool results into previews, keeping the recent turns whole', () => {
    const messages = [...prompt, ...turn(1, 6_000), ...turn(2, 6_000), ...turn(3, 4_000), ...turn(4, 4_000)];
    const fitted = fit(messages, policy)!;
    expect(size(fitted.messages)).toBeLessThanOrEqual(policy.maxChars);
    expect(fitted.messages).toHaveLength(messages.length);
    expect(fitted.messages[3]).toMatchObject({ role: 'tool', content: { compacted: true, originalChars: expect.any(Number) } });
    expect(fitted.messages.slice(-4)).toEqual(messages.slice(-4));
    expect(fitted.sizes).toEqual(fitted.messages.map(messageSize));
  });

  it('then leaves out the oldest turns whole, with one note, keeping the system prompt and the request', () => {
    const messages = [...prompt, ...Array.from({ length: 40 }, (_, i) => turn(i + 1, 1_000)).flat()];
    const fitted = fit(messages, policy)!;
    expect(size(fitted.messages)).toBeLessThanOrEqual(policy.maxChars);
    expect(fitted.messages.slice(0, 3)).toEqual([...prompt, { role: 'user', content: LEFT_OUT_NOTE }]);
    // Every tool result still follows its call.
    const calls = new Set<string>();
    for (const m of fitted.messages) {
      if (m.role === 'assistant') m.toolCalls.forEach((c) => calls.add(c.toolCallId));
      if (m.role === 'tool') expect(calls.has(m.toolCallId)).toBe(true);
    }
    expect(fitted.messages.at(-1)).toEqual(messages.at(-1));
    // Fitting again adds no second note.
    const more = [...fitted.messages, ...turn(41, 8_000), ...turn(42, 8_000)];
    const again = fit(more, policy)!;
    expect(again.messages.filter((m) => m.role === 'user' && m.content === LEFT_OUT_NOTE)).toHaveLength(1);
  });

  it('trims the newest results last, when nothing else is left to give', () => {
    const messages = [...prompt, ...turn(1, 30_000)];
    const fitted = fit(messages, policy)!;
    expect(size(fitted.messages)).toBeLessThanOrEqual(policy.maxChars);
    expect(fitted.messages[3]).toMatchObject({ content: { compacted: true } });
  });

  it('is linear: a 10,000-turn transcript fits in one pass', () => {
    const messages = [...prompt, ...Array.from({ length: 10_000 }, (_, i) => turn(i + 1, 50)).flat()];
    const fitted = fit(messages, { ...policy, maxChars: 400_000 })!;
    expect(size(fitted.messages)).toBeLessThanOrEqual(400_000);
  });
});
