import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { contains, exact, judge, matchesSchema, scorer } from '../../shared/eval/define-eval.js';
import type { ModelClient } from '../../activities/model/model-client.js';
import { scoreAll } from './scoring.js';

const input = {
  caseId: 'c1',
  prompt: 'Refund A-7',
  answer: '{"refunded": 60}',
  expected: '{"refunded": 60}',
  outcome: 'answered',
  toolCalls: [],
};

const judgeSaying = (text: string): ModelClient => ({
  generate: async ({ messages }) => {
    expect(messages[1]!.content).toMatch(/Rubric: mentions the amount[\s\S]*The agent answered: \{"refunded": 60\}/);
    return { status: 'ok', response: { text, toolCalls: [], finishReason: 'stop' } };
  },
});

describe('scoreAll', () => {
  it('scores exact, contains, a schema, a function and a judge, each with why', async () => {
    const scores = await scoreAll(
      [
        exact(),
        contains('REFUNDED'),
        matchesSchema(z.object({ refunded: z.number().max(50) })),
        scorer('half', () => 0.5, { pass: 0.4 }),
        scorer('throws', () => {
          throw new Error('nope');
        }),
        judge('scripted:judge', 'mentions the amount'),
      ],
      input,
      () => judgeSaying('PASS\nIt names the amount.'),
    );
    expect(scores.map((s) => [s.name, s.score, s.pass])).toEqual([
      ['exact', 1, true],
      ['contains "REFUNDED"', 1, true],
      ['schema', 0, false],
      ['half', 0.5, true],
      ['throws', 0, false],
      ['judge', 1, true],
    ]);
    expect(scores[4]!.reason).toBe('the scorer failed: nope');
    expect(scores[5]!.reason).toBe('PASS It names the amount.');
  });

  it('fails a judge that says neither PASS nor FAIL, and an exact scorer with nothing to compare', async () => {
    const [judged, compared] = await scoreAll(
      [judge('scripted:judge', 'mentions the amount'), exact()],
      { ...input, expected: null },
      () => judgeSaying('Looks fine to me.'),
    );
    expect(judged).toMatchObject({ score: 0, pass: false, reason: expect.stringMatching(/neither PASS nor FAIL/) });
    expect(compared).toMatchObject({ score: 0, pass: false, reason: expect.stringMatching(/nothing to compare/) });
  });
});
