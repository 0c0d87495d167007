import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { boundedRead } from './bounded-read.js';
import { POLLED_WITHIN_MS, presenceOf, queryAnswered, queryMissed } from './worker-presence.js';

/** A client whose server lists, for every queue, pollers last seen at `polls()` (epoch ms), counting the calls. */
function fakeClient(polls: () => number[] | Error) {
  const calls = { describeTaskQueue: 0 };
  const client = {
    options: { namespace: 'default' },
    workflowService: {
      describeTaskQueue: async () => {
        calls.describeTaskQueue++;
        const at = polls();
        if (at instanceof Error) throw at;
        return {
          pollers: at.map((ms, i) => ({
            identity: `worker-${i}`,
            lastAccessTime: { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 },
          })),
        };
      },
    },
  } as unknown as Client;
  return { client, calls };
}

describe('presenceOf', () => {
  it('counts a queue as polled while its newest poll is within the window (an idle worker polls about once a minute)', async () => {
    const { client } = fakeClient(() => [Date.now() - POLLED_WITHIN_MS - 5_000, Date.now() - 50_000]);
    expect((await presenceOf(client, 'q')).polled).toBe(true);
  });

  it('counts a queue with no poller, or only old ones, as not polled', async () => {
    expect((await presenceOf(fakeClient(() => []).client, 'q')).polled).toBe(false);
    const old = fakeClient(() => [Date.now() - POLLED_WITHIN_MS - 5_000]);
    expect((await presenceOf(old.client, 'q')).polled).toBe(false);
  });

  it("cannot judge a poll's age when this clock is a day or more off the server's: counts the queue as polled", async () => {
    const day = 24 * 3_600_000;
    // The server's clock, seen from a client 400 days ahead (faketime) or 2 days behind.
    for (const skew of [-400 * day, 2 * day]) {
      const { client } = fakeClient(() => [Date.now() + skew - 5_000]);
      expect((await presenceOf(client, `q${skew}`)).polled).toBe(true);
    }
  });

  it('after an unanswered Query, the queue is not polled until a newer poll shows; an answer clears it too', async () => {
    let newest = Date.now() - 10_000;
    const { client } = fakeClient(() => [newest]);
    const before = await presenceOf(client, 'q');
    expect(before.polled).toBe(true);
    queryMissed(client, 'q', before);
    expect((await presenceOf(client, 'q')).polled).toBe(false);
    expect((await presenceOf(client, 'other')).polled).toBe(true);
    newest = Date.now();
    // One look serves a moment: wait until the next look sees the new poll (a worker came back).
    await expect.poll(async () => (await presenceOf(client, 'q')).polled, { timeout: 5_000 }).toBe(true);

    queryMissed(client, 'q', await presenceOf(client, 'q'));
    expect((await presenceOf(client, 'q')).polled).toBe(false);
    queryAnswered(client, 'q');
    expect((await presenceOf(client, 'q')).polled).toBe(true);
  });

  it('asks the server once for a burst of reads, and counts a queue it cannot describe as polled', async () => {
    const { client, calls } = fakeClient(() => new Error('permission denied'));
    const looks = await Promise.all(Array.from({ length: 20 }, () => presenceOf(client, 'q')));
    expect(looks.every((look) => look.polled)).toBe(true);
    expect(calls.describeTaskQueue).toBe(1);
  });
});

describe('boundedRead', () => {
  it('reads the fallback at once and cancels the Query when no worker polls, however long the deadline', async () => {
    let cancelled = false;
    const outcome = await boundedRead(
      (_deadline, signal) =>
        new Promise<string>((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            cancelled = true;
            reject(new Error('cancelled'));
          }),
        ),
      async () => 'kept',
      24 * 60 * 60_000,
      Promise.resolve(true),
    );
    expect(outcome).toEqual({ value: 'kept', answered: false, missed: false, unpolled: true });
    expect(cancelled).toBe(true);
  });

  it("waits for the worker's answer when a worker polls", async () => {
    let answer: (value: string) => void = () => undefined;
    const read = boundedRead(
      () => new Promise<string>((resolve) => (answer = resolve)),
      async () => 'kept',
      24 * 60 * 60_000,
      Promise.resolve(false),
    );
    setImmediate(() => answer('fresh'));
    expect(await read).toEqual({ value: 'fresh', answered: true, missed: false });
  });
});
