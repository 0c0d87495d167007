/** The run's step log: an entry per plan that adds something, bounded and clipped. */
import { describe, expect, it } from 'vitest';
import type { Plan } from '../planner/index.js';
import { start } from '../planner/testing.js';
import { StepLog } from './step-log.js';

const first = start();
const again = (plan: Plan, extra: Partial<Plan> = {}): Plan => ({ ...plan, record: [], notes: [], ...extra });

describe('StepLog', () => {
  it('logs a new step, and a plan that adds notes or messages, but not the same step again', () => {
    const log = new StepLog();
    expect(log.log(first, 2)).toEqual({ seq: 1, turn: 0, at: 2, action: 'model', detail: 'model turn with 3 tool(s)' });
    expect(log.log(again(first), 2)).toBeUndefined();
    expect(log.log(again(first, { notes: ['a note'] }), 3)).toMatchObject({ seq: 2, action: 'model' });
    expect(log.log(again(first, { said: ['hello', 'there'] }), 4)).toMatchObject({
      seq: 3,
      action: 'message',
      detail: 'hello | there',
    });
    expect(log.entries.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('goes on from a carried log, keeps the newest 50 entries and clips details', () => {
    const log = new StepLog([{ seq: 7, turn: 2, at: 9, action: 'model', detail: 'earlier' }]);
    expect(log.log(again(first, { said: ['x'.repeat(400)] }), 10)).toMatchObject({ seq: 8, detail: 'x'.repeat(300) });
    for (let i = 0; i < 60; i++) log.log(again(first, { notes: [`${i}`] }), 10);
    expect(log.entries).toHaveLength(50);
    expect(log.entries.at(-1)?.seq).toBe(68);
  });
});
