import { describe, expect, it } from 'vitest';
import type { RunEventItem } from '../client/run-events.js';
import { eventLines } from './event-lines.js';

const decided = (detail: unknown) =>
  eventLines('w', { type: 'human', kind: 'review', id: '2.1', detail, turn: 2 } as unknown as RunEventItem);

describe('watch lines', () => {
  it('say what a reviewer decided, not only that they did', () => {
    expect(decided({ type: 'accept' })).toEqual(['[turn 2] decided 2.1: accepted']);
    expect(decided({ type: 'reject', reason: 'not this customer' })).toEqual([
      '[turn 2] decided 2.1: rejected: not this customer',
    ]);
    expect(decided({ type: 'reject' })).toEqual(['[turn 2] decided 2.1: rejected']);
    expect(decided({ type: 'edit', args: { amount: 5 } })).toEqual([
      '[turn 2] decided 2.1: edited, run with {"amount":5}',
    ]);
    expect(decided({ type: 'respond', content: 'Already refunded.' })).toEqual([
      '[turn 2] decided 2.1: answered instead of running it: Already refunded.',
    ]);
    // A long decision reaches the stream as a preview.
    expect(decided({ preview: '{"type":"edit","args":{"note":"aaaa', chars: 9000 })).toEqual([
      '[turn 2] decided 2.1: edited',
    ]);
  });
});
