import { describe, expect, it } from 'vitest';
import { parseLiveEntry, redisLiveKey, REDIS_LIVE_PREFIX } from './redis-live-stream.js';

const base = { at: 1_700_000_000_000, turn: 2, call: 'model:2:1', attempt: 1 };
const entry = (value: unknown) => JSON.stringify(value);

describe('redis live stream entries', () => {
  it('names a run’s stream by its workflow id', () => {
    expect(redisLiveKey(REDIS_LIVE_PREFIX, 'run-1')).toBe('cairn:live:run-1');
    expect(redisLiveKey('p:', 'run-1')).toBe('p:run-1');
  });

  it('takes deltas and resets, keeping only the fields a live event has', () => {
    const toolArgs = [{ toolCallId: 'c1', name: 'lookup', args: '{"id":', extra: true }];
    expect(parseLiveEntry(entry({ ...base, type: 'model_delta', seq: 3, text: 'Hello', toolArgs, more: 1 }))).toEqual({
      ...base,
      type: 'model_delta',
      seq: 3,
      text: 'Hello',
      toolArgs: [{ toolCallId: 'c1', name: 'lookup', args: '{"id":' }],
    });
    expect(parseLiveEntry(entry({ ...base, type: 'model_delta', seq: 1 }))).toEqual({
      ...base,
      type: 'model_delta',
      seq: 1,
    });
    expect(parseLiveEntry(entry({ ...base, attempt: 2, type: 'model_reset', seq: 9, text: 'x' }))).toEqual({
      ...base,
      attempt: 2,
      type: 'model_reset',
    });
    expect(parseLiveEntry(entry({ ...base, turn: 0, type: 'model_reset' }))).toEqual({
      ...base,
      turn: 0,
      type: 'model_reset',
    });
  });

  it('skips what is not a live event', () => {
    const delta = { ...base, type: 'model_delta', seq: 1, text: 'Hi' };
    for (const bad of [
      'not json',
      '',
      'null',
      '[]',
      '"model_delta"',
      entry({ ...delta, type: 'finish' }),
      entry({ ...delta, type: undefined }),
      entry({ ...delta, at: '1' }),
      entry({ ...delta, turn: -1 }),
      entry({ ...delta, turn: 1.5 }),
      entry({ ...delta, call: 3 }),
      entry({ ...delta, attempt: 0 }),
      entry({ ...delta, attempt: '1' }),
      entry({ ...delta, seq: undefined }),
      entry({ ...delta, seq: -1 }),
      entry({ ...delta, text: 5 }),
      entry({ ...delta, toolArgs: {} }),
      entry({ ...delta, toolArgs: [{ toolCallId: 'c1', name: 'lookup' }] }),
      entry({ ...delta, toolArgs: [{ toolCallId: 'c1', name: 2, args: '' }] }),
      entry({ ...delta, toolArgs: [{ toolCallId: 1, name: 'n', args: '' }] }),
      entry({ ...delta, toolArgs: [null] }),
    ])
      expect(parseLiveEntry(bad), bad).toBeUndefined();
  });
});
