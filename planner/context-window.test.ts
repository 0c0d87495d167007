/** The context policy keeps the model's transcript within its budget, oldest first, whole turns only. */
import { describe, expect, it } from 'vitest';
import type { ContextPolicy } from '../shared/agent/agent-policy.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import { LEFT_OUT_NOTE, LOW_WATER_SLACK, fitContext, messageSize } from './context-window.js';

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

function fitWithin(messages: TranscriptMessage[], policy: ContextPolicy) {
  return fitContext(messages, messages.map(messageSize), policy);
}

const size = (messages: readonly TranscriptMessage[]) => messages.reduce((sum, m) => sum + messageSize(m), 0);
const policy: ContextPolicy = { maxChars: 20_000, keepRecentTurns: 2, oldResultChars: 500 };

describe('fitContext', () => {
  // A rewrite is a new epoch: the model activity reads the whole transcript again (long runs slowed down).
  it('trims older turns below the budget, so the next turns fit without another rewrite', () => {
    let messages = [...prompt];
    let rewrites = 0;
    for (let n = 1; n <= 100; n++) {
      messages = [...messages, ...turn(n, 400)];
      const fitted = fitWithin(messages, policy);
      if (!fitted) continue;
      rewrites++;
      expect(size(fitted.messages)).toBeLessThanOrEqual(policy.maxChars * (1 - LOW_WATER_SLACK));
      messages = fitted.messages;
    }
    // ~500 characters a turn, 2,500 of slack: one rewrite every few turns, not every turn after the first.
    expect(rewrites).toBeGreaterThan(5);
    expect(rewrites).toBeLessThan(20);
  });

  it('leaves a transcript within budget alone', () => {
    expect(fitWithin([...prompt, ...turn(1, 100)], policy)).toBeUndefined();
  });

  it('first turns old tool results into previews, keeping the recent turns whole', () => {
    const messages = [...prompt, ...turn(1, 6_000), ...turn(2, 6_000), ...turn(3, 4_000), ...turn(4, 4_000)];
    const fitted = fitWithin(messages, policy)!;
    expect(size(fitted.messages)).toBeLessThanOrEqual(policy.maxChars);
    expect(fitted.messages).toHaveLength(messages.length);
    expect(fitted.messages[3]).toMatchObject({
      role: 'tool',
      content: { compacted: true, originalChars: expect.any(Number) },
    });
    expect(fitted.messages.slice(-4)).toEqual(messages.slice(-4));
    expect(fitted.sizes).toEqual(fitted.messages.map(messageSize));
  });

  it('then leaves out the oldest turns whole, with one note, keeping the system prompt and the request', () => {
    const messages = [...prompt, ...Array.from({ length: 40 }, (_, i) => turn(i + 1, 1_000)).flat()];
    const fitted = fitWithin(messages, policy)!;
    expect(size(fitted.messages)).toBeLessThanOrEqual(policy.maxChars);
    expect(fitted.messages.slice(0, 3)).toEqual([...prompt, { role: 'user', content: LEFT_OUT_NOTE }]);
    // Every tool result still follows its call.
    const calls = new Set<string>();
    for (const m of fitted.messages) {
      if (m.role === 'assistant') for (const c of m.toolCalls) calls.add(c.toolCallId);
      if (m.role === 'tool') expect(calls.has(m.toolCallId)).toBe(true);
    }
    expect(fitted.messages.at(-1)).toEqual(messages.at(-1));
    // Fitting again adds no second note.
    const more = [...fitted.messages, ...turn(41, 8_000), ...turn(42, 8_000)];
    const again = fitWithin(more, policy)!;
    expect(again.messages.filter((m) => m.role === 'user' && m.content === LEFT_OUT_NOTE)).toHaveLength(1);
  });

  it('trims the newest results last, when nothing else is left to give', () => {
    const messages = [...prompt, ...turn(1, 30_000)];
    const fitted = fitWithin(messages, policy)!;
    expect(size(fitted.messages)).toBeLessThanOrEqual(policy.maxChars);
    expect(fitted.messages[3]).toMatchObject({ content: { compacted: true } });
  });

  it('is linear: a 10,000-turn transcript fits in one pass', () => {
    const messages = [...prompt, ...Array.from({ length: 10_000 }, (_, i) => turn(i + 1, 50)).flat()];
    const fitted = fitWithin(messages, { ...policy, maxChars: 400_000 })!;
    expect(size(fitted.messages)).toBeLessThanOrEqual(400_000);
  });

  it('leaves a transcript exactly at its budget alone', () => {
    const messages = [...prompt, ...turn(1, 100)];
    expect(fitWithin(messages, { ...policy, maxChars: size(messages) })).toBeUndefined();
    expect(fitWithin(messages, { ...policy, maxChars: size(messages) - 1 })).toBeDefined();
  });

  it('keeps the system prompt and the request, even when they alone are over the budget', () => {
    const messages: TranscriptMessage[] = [prompt[0]!, { role: 'user', content: 'y'.repeat(30_000) }];
    expect(fitWithin(messages, policy)).toEqual({ messages, sizes: messages.map(messageSize) });
  });

  it('never leaves out the newest turn, even when it alone is over the budget', () => {
    const newest = bigTurn(2, 30_000);
    const fitted = fitWithin([...prompt, ...bigTurn(1, 100), ...newest], { ...policy, keepRecentTurns: 1 })!;
    expect(fitted.messages).toEqual([...prompt, note, ...newest]);
    expect(fitted.sizes).toEqual(fitted.messages.map(messageSize));
  });

  it('leaves out every older turn before any recent one', () => {
    const turns = [1, 2, 3].map((n) => bigTurn(n, 8_000));
    const fitted = fitWithin([...prompt, ...turns.flat()], { ...policy, maxChars: 10_000, keepRecentTurns: 1 })!;
    expect(fitted.messages).toEqual([...prompt, note, ...turns[2]!]);
  });

  it('the recent turns give way oldest first, only as far as the budget needs, never the newest', () => {
    const turns = [1, 2, 3, 4, 5, 6].map((n) => bigTurn(n, 2_000));
    const keptTurns = turns.slice(3).flat();
    // Exactly at the budget once turns 1–3 are out: turn 4 stays.
    const maxChars = size([...prompt, note, ...keptTurns]);
    const fitted = fitWithin([...prompt, ...turns.flat()], { ...policy, maxChars, keepRecentTurns: 5 })!;
    expect(fitted.messages).toEqual([...prompt, note, ...keptTurns]);
    expect(fitted.sizes).toEqual(fitted.messages.map(messageSize));
  });

  it('a recent turn keeps its call when trimming its result is enough', () => {
    const recent = turn(1, 12_000);
    const newest = turn(2, 100);
    const fitted = fitWithin([...prompt, ...recent, ...newest], { ...policy, maxChars: 10_000 })!;
    expect(fitted.messages).toEqual([
      ...prompt,
      recent[0],
      { ...recent[1], content: expect.objectContaining({ compacted: true }) },
      ...newest,
    ]);
  });

  it('trims tool results only: long answers and notes of older turns stay as they were', () => {
    const old: TranscriptMessage[] = [
      { role: 'assistant', content: 'z'.repeat(3_000), toolCalls: [{ toolCallId: '1.1', name: 'lookup', args: {} }] },
      { role: 'tool', toolCallId: '1.1', name: 'lookup', content: 'x'.repeat(20_000) },
      { role: 'user', content: 'w'.repeat(3_000) },
    ];
    const recent = [...turn(2, 100), ...turn(3, 100)];
    const fitted = fitWithin([...prompt, ...old, ...recent], policy)!;
    expect(fitted.messages).toEqual([
      ...prompt,
      old[0],
      { ...old[1], content: expect.objectContaining({ compacted: true }) },
      old[2],
      ...recent,
    ]);
  });

  it('keeps an older result whole when it is no longer than oldResultChars', () => {
    const atLimit = resultOfSize('1.1', 1_000);
    const old: TranscriptMessage[] = [call('1.1'), atLimit, call('2.1'), resultOfSize('2.1', 900)];
    const recent = [...turn(3, 100), ...turn(4, 100)];
    const messages = [...prompt, ...old, ...recent];
    const fitted = fitWithin(messages, {
      maxChars: size(messages) - 1,
      keepRecentTurns: 2,
      oldResultChars: messageSize(atLimit),
    })!;
    // Nothing older could be trimmed, so the oldest turn is left out instead.
    expect(fitted.messages).toEqual([...prompt, note, ...old.slice(2), ...recent]);
  });

  it('trims older results only down to the low-water mark', () => {
    const older = [...turn(1, 6_000), ...turn(2, 6_000)];
    const newest = turn(3, 100);
    const messages = [...prompt, ...older, ...newest];
    const trimmedFirst = [...prompt, older[0]!, previewed(older[1]!), ...older.slice(2), ...newest];
    // The budget whose low-water mark is exactly the size once the first result is trimmed.
    const maxChars = Array.from({ length: 2_000 }, (_, i) => size(trimmedFirst) + i).find(
      (m) => m - Math.floor(m * LOW_WATER_SLACK) === size(trimmedFirst),
    )!;
    expect(fitWithin(messages, { maxChars, keepRecentTurns: 1, oldResultChars: 500 })!.messages).toEqual(trimmedFirst);
  });

  it('keeps a result whole when its preview would be no shorter', () => {
    // A result of the same size as its preview: trimming it would lose the data and save nothing.
    const sameAsPreview = Array.from({ length: 400 }, (_, i) => resultOfSize('1.1', 400 + i)).find(
      (m) => messageSize(previewed(m)) === messageSize(m),
    )!;
    const messages = [...prompt, call('1.1'), sameAsPreview];
    expect(fitWithin(messages, { ...policy, maxChars: size(messages) - 1 })!.messages).toEqual(messages);
  });

  it('a transcript without a prompt gets the note first', () => {
    const turns = [1, 2, 3].map((n) => bigTurn(n, 8_000));
    const fitted = fitWithin(turns.flat(), { ...policy, maxChars: 10_000, keepRecentTurns: 1 })!;
    expect(fitted.messages).toEqual([note, ...turns[2]!]);
  });

  it('tells the model that earlier turns were left out', () => {
    expect(LEFT_OUT_NOTE).toMatch(/earlier turns were left out/i);
  });
});

const note: TranscriptMessage = { role: 'user', content: LEFT_OUT_NOTE };

function call(toolCallId: string): TranscriptMessage {
  return { role: 'assistant', content: '', toolCalls: [{ toolCallId, name: 'lookup', args: {} }] };
}

/** Turn n whose call is `argChars` long (a long call cannot be trimmed), with a short result. */
function bigTurn(n: number, argChars: number): TranscriptMessage[] {
  return [
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ toolCallId: `${n}.1`, name: 'lookup', args: { text: 'a'.repeat(argChars) } }],
    },
    { role: 'tool', toolCallId: `${n}.1`, name: 'lookup', content: { order: n } },
  ];
}

/** A tool result whose message is exactly `chars` long. */
function resultOfSize(toolCallId: string, chars: number): TranscriptMessage {
  const empty: TranscriptMessage = { role: 'tool', toolCallId, name: 'lookup', content: '' };
  return { ...empty, content: 'x'.repeat(chars - messageSize(empty)) };
}

/** A tool result as the model sees it once trimmed. */
function previewed(m: TranscriptMessage): TranscriptMessage {
  const text = JSON.stringify(m.content);
  return {
    ...m,
    content: { compacted: true, preview: text.slice(0, 500), originalChars: text.length },
  } as TranscriptMessage;
}
