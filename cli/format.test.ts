import { describe, expect, it } from 'vitest';
import { callsMade, formatCallCount, formatSummary } from './format.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import type { RunState } from '../workflows/contract/index.js';

describe('tool call counts', () => {
  const call = (toolCallId: string) => ({ toolCallId, name: 'lookup', args: {} });
  const transcript: TranscriptMessage[] = [
    { role: 'system', content: 's' },
    { role: 'user', content: 'u' },
    { role: 'assistant', content: '', toolCalls: [call('1.1'), call('1.2'), call('1.3')] },
    { role: 'assistant', content: '', toolCalls: [call('2.1')] },
  ] as TranscriptMessage[];

  it('count every call the model made, and say how many never ran', () => {
    expect(callsMade(transcript)).toBe(4);
    expect(formatCallCount(2, 4)).toBe('4 tool call(s), 2 refused before running');
    expect(formatCallCount(4, 4)).toBe('4 tool call(s)');
    // A transcript that holds fewer (a run that handed over) never lowers the count.
    expect(formatCallCount(6, 4)).toBe('6 tool call(s)');
    expect(formatCallCount(3)).toBe('3 tool call(s)');
    const state = { agent: 'a', phase: 'done', paused: false, turn: 3, toolCalls: 2 } as RunState;
    expect(formatSummary('wf', state, callsMade(transcript))).toBe(
      'wf · agent a · phase done · turn 3 · 4 tool call(s), 2 refused before running',
    );
    // A run that failed says so, not its last phase (`done`).
    expect(formatSummary('wf', state, 4, 'failed')).toBe(
      'wf · agent a · status failed · turn 3 · 4 tool call(s), 2 refused before running',
    );
  });
});
