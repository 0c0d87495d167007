/** The run page's story, folded from a run's events by the same source text the browser runs. */
import { describe, expect, it } from 'vitest';
import type { RunEventItem } from '../../client/run-events.js';
import { thinkingOf, visibleText } from '../../shared/model/think-block.js';
import { RUN_STORY_SCRIPT } from './run-story-script.js';

interface Entry {
  readonly key: string;
  readonly kind: string;
  readonly version: number;
  readonly [field: string]: unknown;
}
interface Story {
  readonly entries: Entry[];
  readonly tokens: { input: number; output: number };
  readonly finishedAt: number | null;
}
const {
  newStory,
  addEvent,
  takeChanged,
  timeSpent,
  formatDuration,
  valueText,
  errorLinks,
  windowStart,
  earlierStart,
  splitThinking,
  historyLink,
} = new Function(
  `${RUN_STORY_SCRIPT}\nreturn { newStory, addEvent, takeChanged, timeSpent, formatDuration, valueText, errorLinks, windowStart, earlierStart, splitThinking, historyLink };`,
)() as {
  windowStart(total: number, from: number, pinned: boolean, size: number): number;
  earlierStart(from: number, size: number): number;
  splitThinking(text: string): { reasoning: string; text: string };
  historyLink(
    base: string | null,
    workflowId: string,
    entry: Entry,
  ): { href: string; text: string; title: string } | null;
  newStory(): Story;
  takeChanged(story: Story): Entry[];
  addEvent(story: Story, event: RunEventItem): Story;
  timeSpent(story: Story, now: number | null): Record<string, number>;
  formatDuration(ms: number): string;
  valueText(value: unknown): string;
  errorLinks(error: unknown): { code: string }[];
};

let offset = 0;
const at = (ms: number, turn: number) => ({ at: 1_000_000 + ms, turn, offset: offset++ });
const failed = {
  status: 'error',
  name: 'lookup_order',
  toolCallId: '1.1',
  error: {
    code: 'invalid_arguments',
    kind: 'model',
    message: 'orderId: Invalid',
    cause: { code: 'internal_error', kind: 'internal', message: 'zod' },
  },
  retryHint: { reason: 'fix_arguments', tool: 'lookup_order', restrictToTool: true },
  telemetry: { durationMs: 4, attempt: 1 },
};

/** A run: asked, a failed call, a repair, a back-off, a review decided by a person, the end. */
function storyRun(): RunEventItem[] {
  offset = 0;
  return [
    { ...at(0, 0), type: 'run_started', agent: 'orders', prompt: 'Refund A-7.' },
    { ...at(10, 0), type: 'decision', seq: 1, action: 'model', detail: 'model turn with 3 tool(s)' },
    { ...at(15, 0), type: 'model_delta', call: 'model:1:1', attempt: 1, seq: 1, text: 'Look' },
    { ...at(16, 0), type: 'model_delta', call: 'model:1:1', attempt: 1, seq: 2, text: 'ing up' },
    {
      ...at(110, 0),
      type: 'model_turn',
      call: 'model:1:1',
      text: 'Looking up',
      toolCalls: ['lookup_order'],
      usage: { inputTokens: 100, outputTokens: 20 },
    },
    { ...at(111, 1), type: 'decision', seq: 2, action: 'run_tools', detail: 'lookup_order' },
    { ...at(112, 1), type: 'tool_start', toolCallId: '1.1', name: 'lookup_order', args: { orderId: 'bad' } },
    { ...at(142, 1), type: 'tool_end', toolCallId: '1.1', name: 'lookup_order', result: failed },
    {
      ...at(143, 1),
      type: 'decision',
      seq: 3,
      action: 'back_off',
      detail: 'back-off for lookup_order: rate limited; retry in 1000 ms without a model turn',
    },
    { ...at(1143, 1), type: 'tool_start', toolCallId: '1.1', name: 'lookup_order', args: { orderId: 'bad' } },
    {
      ...at(1150, 1),
      type: 'tool_end',
      toolCallId: '1.1',
      name: 'lookup_order',
      result: { status: 'ok', result: { id: 'A-7' } },
    },
    { ...at(1151, 1), type: 'decision', seq: 4, action: 'review', detail: 'issue_refund {"amount":80}' },
    {
      ...at(1151, 1),
      type: 'review',
      reviews: [{ toolCallId: '2.1', name: 'issue_refund', args: { amount: 80 }, argsHash: 'h1' }],
    },
    { ...at(61_151, 1), type: 'human', kind: 'review', id: '2.1', detail: { type: 'accept' } },
    { ...at(61_200, 2), type: 'decision', seq: 5, action: 'finish', detail: 'the model answered' },
    { ...at(61_201, 2), type: 'finish', answer: 'Refunded.', reason: null, toolCalls: 2 },
  ] as RunEventItem[];
}

describe('the run story', () => {
  it('tells each model turn, each execution of a call, each decision and each decision a person made, in order', () => {
    const story = storyRun().reduce(addEvent, newStory());
    expect(story.entries.map((e) => e.kind)).toEqual([
      'request',
      'decision',
      'model',
      'decision',
      'tool',
      'decision',
      'tool', // the same call run again after the back-off: a second entry, not the first overwritten
      'decision',
      'review',
      'person',
      'decision',
      'finish',
    ]);
    const [first, again] = story.entries.filter((e) => e.kind === 'tool');
    expect(first).toMatchObject({
      status: 'error',
      error: failed.error,
      hint: failed.retryHint,
      args: { orderId: 'bad' },
    });
    expect(errorLinks(first!.error).map((l) => l.code)).toEqual(['invalid_arguments', 'internal_error']);
    expect(again).toMatchObject({ status: 'ok', result: { id: 'A-7' } });
    const model = story.entries.find((e) => e.kind === 'model')!;
    // The live deltas and the recorded turn are one entry; the recorded text wins.
    expect(model).toMatchObject({ text: 'Looking up', live: false, turn: 1, toolCalls: ['lookup_order'] });
    expect(story.tokens).toEqual({ input: 100, output: 20 });
    expect(story.entries.find((e) => e.kind === 'decision' && e.action === 'back_off')!.until).toBe(1_000_000 + 1143);
    expect(story.entries.find((e) => e.kind === 'review')).toMatchObject({ decided: { type: 'accept' } });
    expect(story.entries.at(-1)).toMatchObject({ kind: 'finish', answer: 'Refunded.' });
    // What the page draws: each entry once, however often it changed; then only what changes next.
    expect(takeChanged(story).map((e) => e.key)).toEqual(story.entries.map((e) => e.key));
    expect(takeChanged(story)).toEqual([]);
    // Told again from an earlier offset (a resumed stream): nothing new.
    const before = JSON.stringify(story);
    for (const event of storyRun().slice(5)) addEvent(story, event);
    expect(JSON.stringify(story)).toBe(before);
    expect(takeChanged(story)).toEqual([]);
  });

  it('shows a turn as it streams, and drops the text of an attempt that was reset', () => {
    offset = 0;
    const story = newStory();
    addEvent(story, { ...at(0, 0), type: 'model_delta', call: 'model:1:1', attempt: 1, seq: 1, text: 'Hal' } as never);
    expect(story.entries[0]).toMatchObject({ kind: 'model', live: true, text: 'Hal' });
    addEvent(story, { ...at(1, 0), type: 'model_reset', call: 'model:1:1', attempt: 2 } as never);
    addEvent(story, {
      ...at(2, 0),
      type: 'model_delta',
      call: 'model:1:1',
      attempt: 2,
      seq: 1,
      text: 'Hello',
    } as never);
    addEvent(story, { ...at(3, 0), type: 'model_delta', call: 'model:1:1', attempt: 1, seq: 2, text: 'f' } as never);
    expect(story.entries).toHaveLength(1);
    expect(story.entries[0]).toMatchObject({ text: 'Hello', attempt: 2 });
  });

  it('counts the time per kind of step: model, tools, waiting on a person, backing off', () => {
    const story = storyRun().reduce(addEvent, newStory());
    const spent = timeSpent(story, 10 ** 12); // finished: now does not count
    expect(spent).toEqual({ model: 100, tools: 40, backoff: 1000, person: 60_000, other: 61 });
    // A run still going counts its current step up to now.
    const going = storyRun().slice(0, 13).reduce(addEvent, newStory());
    expect(timeSpent(going, 1_000_000 + 1151 + 5_000).person).toBe(5_000);
  });

  it('says cut previews, durations and values as text', () => {
    expect(valueText({ preview: '{"a":"xx', chars: 9000 })).toBe('{"a":"xx … (9000 characters, cut)');
    expect(valueText('<img src=x onerror=alert(1)>')).toBe('<img src=x onerror=alert(1)>');
    expect(valueText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect([850, 12_340, 245_000, 7_380_000].map(formatDuration)).toEqual([
      '850 ms',
      '12.3 s',
      '4 min 05 s',
      '2 h 03 min',
    ]);
  });
});

describe('a run that moved to a newer build of its agent', () => {
  it('tells the hand-over with the build it moves to, then the change of agent version', () => {
    offset = 0;
    let story = newStory();
    for (const event of [
      { ...at(0, 1), type: 'hand_over', generation: 1, upgradeTo: 'build-2' },
      { ...at(5, 1), type: 'agent_changed', from: 'aaaa', to: 'bbbb', buildId: 'build-2' },
    ] as RunEventItem[])
      story = addEvent(story, event);
    expect(
      takeChanged(story).map(({ kind, upgradeTo, from, to, buildId }) => ({ kind, upgradeTo, from, to, buildId })),
    ).toEqual([
      { kind: 'hand_over', upgradeTo: 'build-2', from: undefined, to: undefined, buildId: undefined },
      { kind: 'agent_changed', upgradeTo: undefined, from: 'aaaa', to: 'bbbb', buildId: 'build-2' },
    ]);
  });
});

describe('a long story, paged', () => {
  it('draws the newest page, then each earlier page above it, and keeps what a person asked for', () => {
    offset = 0;
    const story = newStory();
    const turns = 300;
    for (let t = 0; t < turns; t++) {
      addEvent(story, { ...at(t * 10, t), type: 'model_turn', call: `model:${t + 1}:1`, text: `turn ${t}` } as never);
    }
    expect(story.entries.map((e) => e.index)).toEqual([...Array(turns).keys()]);
    // Unpinned, the window follows the newest 100 as the story grows; it never moves back.
    expect(windowStart(turns, 0, false, 100)).toBe(200);
    expect(windowStart(50, 0, false, 100)).toBe(0);
    expect(windowStart(301, 200, false, 100)).toBe(201);
    // "Show earlier": the page before, down to the first entry; pinned, new entries add to what is shown.
    expect([200, 100, 30].map((from) => earlierStart(from, 100))).toEqual([100, 0, 0]);
    expect(windowStart(400, 100, true, 100)).toBe(100);
  });
});

describe('each step, linked and folded', () => {
  it('names the activity of each model turn and of each execution of a tool call, per run of the chain', () => {
    offset = 0;
    let story = newStory();
    for (const event of [
      { ...at(0, 0), type: 'model_turn', call: 'model:1:1', text: 'x', toolCalls: ['lookup_order'] },
      { ...at(1, 1), type: 'tool_start', toolCallId: '1.1', name: 'lookup_order', args: {} },
      { ...at(2, 1), type: 'tool_end', toolCallId: '1.1', name: 'lookup_order', result: failed },
      { ...at(3, 1), type: 'tool_start', toolCallId: '1.1', name: 'lookup_order', args: {} },
      { ...at(4, 1), type: 'tool_end', toolCallId: '1.1', name: 'lookup_order', result: { status: 'ok' } },
      // Refused at the boundary: it never ran, so no activity.
      { ...at(5, 1), type: 'tool_end', toolCallId: '1.2', name: 'issue_refund', args: {}, result: failed },
      { ...at(6, 1), type: 'hand_over', generation: 1 },
      { ...at(7, 1), type: 'tool_start', toolCallId: '1.1', name: 'lookup_order', args: {} },
      { ...at(8, 1), type: 'model_turn', text: 'an older run: no call id' },
    ] as RunEventItem[])
      story = addEvent(story, event);
    expect(story.entries.filter((e) => e.kind !== 'hand_over').map((e) => e.activity)).toEqual([
      'model:1:1',
      'tool:1.1:lookup_order:1',
      'tool:1.1:lookup_order:2',
      null,
      'tool:1.1:lookup_order:1', // the next run of the chain numbers its activities afresh
      null,
    ]);
    const base = 'http://ui.test/namespaces/default/workflows/';
    expect(historyLink(base, 'run a/1', story.entries[0]!)).toEqual({
      href: `${base}run%20a%2F1`,
      text: 'Temporal UI · model:1:1',
      title: "The run's history in the Temporal UI; this step is activity model:1:1",
    });
    expect(historyLink(base, 'r', story.entries.at(-1)!)).toMatchObject({ href: `${base}r`, text: 'Temporal UI' });
    expect(historyLink(null, 'r', story.entries[0]!)).toBeNull();
  });

  it('sets a model turn’s reasoning apart from what it said, as shared/model/think-block.ts reads it', () => {
    for (const text of [
      '<think>Check the order first.</think>Looking it up.',
      'Before <THINK> a </think> between <think>b</think> after',
      'Said.<think>cut off while thinking',
      'No reasoning at all.',
      '<think>  </think>Only blanks thought.',
      '<think><script>alert(1)</script></think><b>bold</b>',
    ])
      expect(splitThinking(text)).toEqual({ reasoning: thinkingOf(text), text: visibleText(text) });
  });
});
