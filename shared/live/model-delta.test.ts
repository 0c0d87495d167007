import { describe, expect, it } from 'vitest';
import { batchDeltas, isLiveTopic, turnOfCall, type ModelDelta } from './model-delta.js';

const text = (t: string): ModelDelta => ({ kind: 'text', text: t });
const args = (toolCallId: string, a: string, name = 'search'): ModelDelta => ({
  kind: 'tool-args',
  toolCallId,
  name,
  args: a,
});

describe('turnOfCall', () => {
  it('reads the turn a model call id names, and 0 for ids that name none', () => {
    expect(turnOfCall('model:3:1')).toBe(3);
    expect(turnOfCall('model:12:2')).toBe(12);
    expect(turnOfCall('model:x:1')).toBe(0);
    expect(turnOfCall('tool:model:3:1')).toBe(0);
    expect(turnOfCall('model-1')).toBe(0);
  });
});

describe('isLiveTopic', () => {
  it('is true only for the live topics, which a run does not carry into continue-as-new', () => {
    expect(isLiveTopic('model_delta')).toBe(true);
    expect(isLiveTopic('model_reset')).toBe(true);
    expect(isLiveTopic('model_turn')).toBe(false);
    expect(isLiveTopic('')).toBe(false);
  });
});

describe('batchDeltas', () => {
  it('sends nothing for no deltas (no empty batch)', () => {
    expect(batchDeltas([], 10)).toEqual([]);
    expect(batchDeltas([text('')], 10)).toEqual([]);
  });

  it('joins text pieces into one batch while they fit', () => {
    expect(batchDeltas([text('Hel'), text('lo')], 10)).toEqual([{ text: 'Hello', toolArgs: [] }]);
  });

  it('splits text across batches of at most maxChars, losing nothing', () => {
    const batches = batchDeltas([text('abcd'), text('efghij')], 4);
    expect(batches).toEqual([
      { text: 'abcd', toolArgs: [] },
      { text: 'efgh', toolArgs: [] },
      { text: 'ij', toolArgs: [] },
    ]);
  });

  it('joins argument pieces per call in arrival order; another call starts its own entry', () => {
    const batches = batchDeltas([args('c1', '{"q":'), args('c1', '"x"}'), args('c2', '{}', 'fetch'), text('ok')], 100);
    expect(batches).toEqual([
      {
        text: 'ok',
        toolArgs: [
          { toolCallId: 'c1', name: 'search', args: '{"q":"x"}' },
          { toolCallId: 'c2', name: 'fetch', args: '{}' },
        ],
      },
    ]);
  });

  it('counts text and arguments against the same budget, and splits a long argument text', () => {
    const batches = batchDeltas([text('ab'), args('c1', '12345')], 4);
    expect(batches).toEqual([
      { text: 'ab', toolArgs: [{ toolCallId: 'c1', name: 'search', args: '12' }] },
      { text: '', toolArgs: [{ toolCallId: 'c1', name: 'search', args: '345' }] },
    ]);
  });
});
