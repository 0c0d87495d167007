/**
 * Flow control's queue, against the real Redis (127.0.0.1:6379): held calls keep their place, a
 * newcomer never goes ahead of them, a slot freed while the first in line is away goes to the next
 * held call that is here (the provider is not left idle) and the late one still goes next, a
 * call first in line is told exactly when its slot frees, and an in-flight slot freed is taken at
 * the next ask. Waits are the ones Redis gives (its own clock): the test sleeps at least that long.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { redisFlowControl, type Admission, type FlowControl } from './flow-control.js';

const opened: FlowControl[] = [];
afterEach(async () => {
  for (const f of opened.splice(0)) await f.close();
});

/**
 * One slot every SLOT ms. A second, not less: on a loaded machine (CI's 2 shared cores) a stall of
 * a few hundred ms between two asks is common, and the test must not read it as a free slot.
 */
const SLOT = 1_000;
function limiter(
  limit: { requestsPerMinute?: number; inFlight?: number } = { requestsPerMinute: 60_000 / SLOT },
): FlowControl {
  const flow = redisFlowControl({
    limits: { fake: limit },
    keyPrefix: `cairn:test:flow:${randomUUID()}:`,
    timeoutMs: 10_000,
    log: () => undefined,
  });
  opened.push(flow);
  return flow;
}

type Held = Extract<Admission, { go: false }>;
const held = (a: Admission): Held => {
  expect(a.go).toBe(false);
  return a as Held;
};

describe('flow control: the queue of held calls', () => {
  it('holds calls in the order they came; a newcomer waits behind them; the first is told when its slot frees', async () => {
    const flow = limiter();
    expect((await flow.admit('fake:m', 'a')).go).toBe(true);
    // When each is told to come back, between the clock before asking and after the answer: a busy
    // machine may stall between two asks, so the waits alone need not grow; the turns they name do.
    const ask = async (id: string) => {
      const before = Date.now();
      const h = held(await flow.admit('fake:m', id));
      return { ...h, earliest: before + h.waitMs, latest: Date.now() + h.waitMs };
    };
    const b = await ask('b');
    const c = await ask('c');
    const d = await ask('d');
    expect(b.why).toBe('requests');
    expect([c.why, d.why]).toEqual(['queued', 'queued']);
    expect(b.waitMs).toBeLessThanOrEqual(SLOT);
    // b is due at the next slot; c, first behind it, never before b; d a slot behind c: at least
    // half a slot later however the clocks fall.
    expect(c.latest).toBeGreaterThanOrEqual(b.earliest);
    expect(d.latest).toBeGreaterThan(c.earliest + SLOT / 2);
    // b comes back when told: its slot is there.
    await sleep(b.waitMs + 5);
    expect((await flow.admit('fake:m', 'b')).go).toBe(true);
    // A newcomer, even with a free slot ahead, goes behind c and d.
    await sleep(SLOT * 1.1);
    const e = held(await flow.admit('fake:m', 'e'));
    expect(e.why).toBe('queued');
    expect(e.waitMs).toBeGreaterThanOrEqual(SLOT * 2);
  });

  it('a slot freed while the first in line is away goes to the next held call here; the late one still goes next', async () => {
    const flow = limiter();
    expect((await flow.admit('fake:m', 'a')).go).toBe(true);
    held(await flow.admit('fake:m', 'late')); // first in line, then away
    const next = held(await flow.admit('fake:m', 'next'));
    held(await flow.admit('fake:m', 'after'));
    await sleep(next.waitMs + 5);
    // 'late' is not here: 'next', held before, takes the slot rather than leave it unused.
    expect((await flow.admit('fake:m', 'next')).go).toBe(true);
    // 'late' comes back: still first in line, told only the pace's wait.
    const back = await flow.admit('fake:m', 'late');
    if (!back.go) {
      expect(back.why).toBe('requests');
      await sleep(back.waitMs + 5);
      expect((await flow.admit('fake:m', 'late')).go).toBe(true);
    }
    // 'after' went after both.
    const after = await flow.admit('fake:m', 'after');
    expect(after.go === true || (after as Held).why === 'requests').toBe(true);
  });

  it('an in-flight slot freed is taken at the next ask', async () => {
    const flow = limiter({ inFlight: 1 });
    const first = await flow.admit('fake:m', 'one');
    expect(first.go).toBe(true);
    expect(held(await flow.admit('fake:m', 'two')).why).toBe('in_flight');
    await (first as Extract<Admission, { go: true }>).release();
    expect((await flow.admit('fake:m', 'two')).go).toBe(true);
  });
});
