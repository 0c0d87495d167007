import { describe, expect, it } from 'vitest';
import { pause, PermitWait } from './permit-wait.js';

describe('PermitWait', () => {
  it('asks a held call back a lead early, and learns the lead from how late timers fire', () => {
    const permits = new PermitWait();
    expect(permits.lead()).toBe(250);
    expect(permits.backIn('a', 10_000, 0)).toBe(9_750);
    // Its timer fired 1 s late: the lead grows toward it (an average, with a margin), within its bounds.
    permits.returned('a', 10_750);
    expect(permits.lead()).toBe(400);
    for (let i = 0; i < 40; i++) {
      permits.backIn(`b${i}`, 5_000, 0);
      permits.returned(`b${i}`, 4_000 + 5_000);
    }
    expect(permits.lead()).toBe(6_000);
    // Unknown or repeated returns change nothing.
    permits.returned('a', 99_000);
    expect(permits.lead()).toBe(6_000);
  });

  it('holds only calls whose slot is near, and at most maxHeld at once', () => {
    const permits = new PermitWait(2);
    expect(permits.hold(600)).toBe(false);
    expect(permits.hold(500)).toBe(true);
    expect(permits.hold(10)).toBe(true);
    expect(permits.hold(10)).toBe(false);
    permits.done();
    expect(permits.hold(10)).toBe(true);
    // One that found no place is told its whole wait, not asked back at once.
    expect(permits.backIn('c', 200, 0)).toBe(200);
  });

  it('pause ends early when the activity is cancelled', async () => {
    const controller = new AbortController();
    const waiting = pause(60_000, controller.signal);
    controller.abort('cancelled');
    await expect(waiting).rejects.toBe('cancelled');
    await expect(pause(1, new AbortController().signal)).resolves.toBeUndefined();
  });
});
