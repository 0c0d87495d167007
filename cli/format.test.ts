import { describe, expect, it } from 'vitest';
import { callsMade, formatCallCount, formatReview, formatSummary, formatToolContent } from './format.js';
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

describe('a failed tool call, as show and the demo print it', () => {
  it('says its hint in words, and never prints JSON cut mid-way', () => {
    const content = {
      error: { code: 'invalid_arguments', message: 'A delivery window is required.' },
      hint: {
        reason: 'invalid_arguments',
        tool: 'schedule_redelivery',
        missingFields: ['window'],
        clarifyingQuestion: 'Which delivery window suits you?',
        exampleInput: { orderId: 'A-1001', window: 'morning' },
        priorInput: { orderId: 'A-1002' },
        restrictToTool: true,
        issues: Array.from({ length: 20 }, (_, i) => ({ path: `f${i}`, message: 'x'.repeat(40) })),
      },
      partial: { orders: Array.from({ length: 50 }, (_, i) => ({ id: `A-${i}` })) },
    };
    expect(formatToolContent('schedule_redelivery', '6.1', content).split('\n')).toEqual([
      '✗ schedule_redelivery [6.1] invalid_arguments: A delivery window is required.',
      '  hint: missing window; ask the user: Which delivery window suits you?; for example {"orderId":"A-1001","window":"morning"}; the next turn may call only schedule_redelivery',
      `  partial: (${JSON.stringify(content.partial).length} characters; cairn show --json has it whole)`,
    ]);
  });
});

describe('a held workspace write, as show prints it', () => {
  it('prints the diff under the review, indented, before the command that decides it', () => {
    const lines = formatReview('run-1', {
      toolCallId: '2.1',
      name: 'write_file',
      args: { path: 'sum.js', content: 'x' },
      argsHash: 'h1',
      change: '--- a/sum.js\n+++ b/sum.js\n@@ -1 +1 @@\n-y\n+x\n',
    });
    expect(lines.slice(1, 7)).toEqual([
      '  would change:',
      '    --- a/sum.js',
      '    +++ b/sum.js',
      '    @@ -1 +1 @@',
      '    -y',
      '    +x',
    ]);
    expect(lines.at(-1)).toContain('cairn review run-1 2.1');
  });
});
