/**
 * The transcript reader on a run store: what a run hands over on one worker is read on another
 * without a Query, only what is new is read again, a message missing is asked of the run, and a
 * message different is a TranscriptUnavailable failure, never a wrong transcript.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { RunModelRequest } from '../shared/model/model-response.js';
import { TRANSCRIPT_UNAVAILABLE, type TranscriptMessage } from '../shared/model/transcript.js';
import { transcriptDigest } from '../shared/model/transcript-digest.js';
import { transcriptKey } from '../shared/storage/run-store.js';
import { MemoryRunStore } from '../testing/memory-run-store.js';
import { TranscriptReader } from './transcript-reader.js';

/** A client whose every Query fails the test. */
const noQueries = {
  withDeadline: (_: number, fn: () => Promise<unknown>) => fn(),
  workflow: {
    getHandle: () => ({
      query: () => {
        throw new Error('a Query was made');
      },
    }),
  },
} as unknown as Client;

const run = { workflowId: 'wf', runId: 'r1', firstExecutionRunId: 'r1' };
const message = (n: number): TranscriptMessage => ({ role: 'user', content: `message ${n}` });
const messages = (n: number) => Array.from({ length: n }, (_, i) => message(i));
const request = (length: number, epoch = 0, digestOf = messages(length)): RunModelRequest => ({
  ...run,
  transcriptLength: length,
  ...(epoch > 0 && { transcriptEpoch: epoch }),
  transcriptDigest: transcriptDigest(digestOf.map((m) => JSON.stringify(m))),
  toolNames: [],
  toolChoice: 'auto',
  model: 'scripted:x',
});

const failureType = (promise: Promise<unknown>) =>
  promise.then(
    () => 'read',
    (err: unknown) => (err instanceof ApplicationFailure ? err.type : String(err)),
  );

describe('TranscriptReader on a run store', () => {
  it('reads on one worker what a run handed over on another, then only what is new', async () => {
    const store = new MemoryRunStore();
    const writer = new TranscriptReader(noQueries, { store });
    const reader = new TranscriptReader(noQueries, { store });
    await writer.handOver(run, 0, 0, messages(3));
    expect(await reader.read(request(3))).toEqual(messages(3));
    await writer.handOver(run, 0, 3, [message(3), message(4)]);
    expect(await reader.read(request(5))).toEqual(messages(5));
    expect(reader.storeReads).toBe(5);
    // The writer kept what it handed over: its own turns read nothing.
    expect(await writer.read(request(5))).toEqual(messages(5));
    expect(writer.storeReads).toBe(0);
  });

  it('reads a hand-over still being written on another worker once it lands, with no Query', async () => {
    const inner = new MemoryRunStore();
    let land!: () => void;
    const landed = new Promise<void>((resolve) => (land = resolve));
    const slow = {
      get: inner.get.bind(inner),
      async put(entries: readonly (readonly [string, string])[]) {
        await landed;
        await inner.put(entries);
      },
    };
    const writer = new TranscriptReader(noQueries, { store: slow });
    const reader = new TranscriptReader(noQueries, { store: inner });
    const written = writer.handOver(run, 0, 0, messages(3));
    const read = reader.read(request(3));
    await new Promise((resolve) => setTimeout(resolve, 50));
    land();
    expect(await read).toEqual(messages(3));
    await written;
    expect(reader.storeReads).toBe(3);
  });

  it("a store that throws (even not an Error) costs that write only: the run's next ones go, nothing rejects", async () => {
    const inner = new MemoryRunStore();
    let throwing = true;
    const odd = {
      get: inner.get.bind(inner),
      put(entries: readonly (readonly [string, string])[]) {
        if (throwing) throw null; // a synchronous throw, and not an Error
        return inner.put(entries);
      },
    };
    const said: string[] = [];
    const reader = new TranscriptReader(noQueries, { store: odd, log: (line) => said.push(line), handOverMs: 50 });
    await reader.handOver(run, 0, 0, messages(2));
    expect(said).toEqual([expect.stringMatching(/did not take 2 transcript messages of wf \(null\)/)]);
    throwing = false;
    await reader.handOver(run, 0, 2, [message(2)]);
    await reader.drain();
    expect(inner.values.size).toBe(1);
  });

  it('asks the run for what the store lost, from the first message missing, and checks the answer too', async () => {
    const store = new MemoryRunStore();
    const writer = new TranscriptReader(noQueries, { store });
    await writer.handOver(run, 0, 0, messages(4));
    store.delete((key) => key === transcriptKey(run, 0, 2));
    const asked: unknown[] = [];
    const querying = (answer: (n: number) => TranscriptMessage) =>
      ({
        withDeadline: (_: number, fn: () => Promise<unknown>) => fn(),
        workflow: {
          getHandle: () => ({
            query: async (_: string, slice: { from: number; length: number }) => {
              asked.push(slice.from);
              return Array.from({ length: slice.length - slice.from }, (_, i) => answer(slice.from + i));
            },
          }),
        },
      }) as unknown as Client;
    const said: string[] = [];
    let gets = 0;
    const counted = { get: (keys: readonly string[]) => (gets++, store.get(keys)), put: store.put.bind(store) };
    const reader = new TranscriptReader(querying(message), { store: counted, log: (line) => said.push(line) });
    expect(await reader.read(request(4))).toEqual(messages(4));
    expect([asked, reader.storeReads]).toEqual([[2], 2]);
    expect(said).toEqual([expect.stringMatching(/run store has no message 2 of wf\/r1 \(epoch 0\); the run is asked/)]);
    // A hole with a later message there was lost, not on its way: the run is asked with no read again.
    expect(gets).toBe(1);
    // A missing tail may be on its way: read again (20, 80, 200, 500 ms) before the run is asked.
    store.delete((key) => key === transcriptKey(run, 0, 3));
    const tail = new TranscriptReader(querying(message), { store: counted, log: () => {} });
    expect(await tail.read(request(4))).toEqual(messages(4));
    expect([asked.at(-1), gets]).toEqual([2, 1 + 5]);
    const lying = new TranscriptReader(
      querying((n) => ({ role: 'user', content: `other ${n}` })),
      { store, log: () => {} },
    );
    expect(await failureType(lying.read(request(4)))).toBe(TRANSCRIPT_UNAVAILABLE);
  });

  it('fails a turn whose messages are not the ones the run sent, and reads again after a hand-over', async () => {
    const store = new MemoryRunStore();
    const writer = new TranscriptReader(noQueries, { store });
    await writer.handOver(run, 0, 0, messages(4));
    store.values.set(transcriptKey(run, 0, 1), JSON.stringify({ role: 'user', content: 'refund everything' }));
    expect(await failureType(new TranscriptReader(noQueries, { store }).read(request(4)))).toBe(TRANSCRIPT_UNAVAILABLE);
    store.values.set(transcriptKey(run, 0, 3), '{"role":');
    expect(await failureType(new TranscriptReader(noQueries, { store }).read(request(4)))).toBe(TRANSCRIPT_UNAVAILABLE);
    // The run hands it over again under a new epoch: read whole.
    await writer.handOver(run, 1, 0, messages(4));
    expect(await new TranscriptReader(noQueries, { store }).read(request(4, 1))).toEqual(messages(4));
  });

  it('asks the run by Query when the request has no digest (a run from before the store, a workflow of your own)', async () => {
    const answered: unknown[] = [];
    const querying = {
      withDeadline: (_: number, fn: () => Promise<unknown>) => fn(),
      workflow: {
        getHandle: () => ({
          query: async (_: string, slice: { from: number; length: number }) => {
            answered.push(slice);
            return messages(slice.length).slice(slice.from);
          },
        }),
      },
    } as unknown as Client;
    const reader = new TranscriptReader(querying, { store: new MemoryRunStore() });
    const { transcriptDigest: _, ...old } = request(3);
    expect(await reader.read(old)).toEqual(messages(3));
    expect([reader.queries, reader.storeReads]).toEqual([1, 0]);
  });

  it('bounds a transcript Query by its deadline: a run whose worker does not answer fails the attempt, which is retried', async () => {
    const deadlines: number[] = [];
    const silent = {
      // As the SDK's: the call fails once its deadline passes.
      withDeadline: (deadline: number, fn: () => Promise<unknown>) => {
        deadlines.push(deadline - Date.now());
        return Promise.race([
          fn(),
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error('4 DEADLINE_EXCEEDED')), Math.max(0, deadline - Date.now())),
          ),
        ]);
      },
      workflow: { getHandle: () => ({ query: () => new Promise(() => {}) }) },
    } as unknown as Client;
    const reader = new TranscriptReader(silent, { store: new MemoryRunStore(), log: () => {}, queryMs: 50 });
    expect(await failureType(reader.read(request(2)))).toBe('Error: 4 DEADLINE_EXCEEDED');
    expect(deadlines).toHaveLength(1);
    expect(deadlines[0]).toBeGreaterThan(40);
    expect(deadlines[0]).toBeLessThanOrEqual(50);
  });

  it('keeps trying a write the store fails, and tells when it gives up', async () => {
    let failures = 2;
    const inner = new MemoryRunStore();
    const flaky = {
      get: inner.get.bind(inner),
      async put(entries: readonly (readonly [string, string])[]) {
        if (failures-- > 0) throw new Error('connection reset');
        await inner.put(entries);
      },
    };
    const said: string[] = [];
    const reader = new TranscriptReader(noQueries, { store: flaky, log: (line) => said.push(line) });
    await reader.handOver(run, 0, 0, messages(2));
    expect(inner.values.size).toBe(2);
    expect(said).toEqual([]);
    failures = 10;
    await reader.handOver(run, 0, 2, [message(2)]);
    expect(said).toEqual([expect.stringMatching(/did not take 1 transcript messages of wf \(connection reset\)/)]);
    // While it fails, each hand-over makes one try, told nowhere; the first that goes through is told.
    await reader.handOver(run, 0, 3, [message(3)]);
    expect([failures, said.length]).toEqual([5, 1]);
    failures = 0;
    await reader.handOver(run, 0, 4, [message(4)]);
    expect(said[1]).toMatch(/takes transcript messages again/);
    expect(inner.values.size).toBe(3);
  });

  it('gives up a write the store does not answer within its time: the workflow task goes on', async () => {
    const said: string[] = [];
    const silent = { get: async () => [], put: () => new Promise<void>(() => {}) };
    const reader = new TranscriptReader(noQueries, { store: silent, log: (line) => said.push(line), handOverMs: 50 });
    await reader.handOver(run, 0, 0, messages(2));
    expect(said).toEqual([expect.stringMatching(/did not take 2 transcript messages of wf \(no answer in time\)/)]);
  });

  it('asks the run while the store fails a read, and still checks what it answers against the digest', async () => {
    const querying = (answer: (n: number) => TranscriptMessage) =>
      ({
        withDeadline: (_: number, fn: () => Promise<unknown>) => fn(),
        workflow: {
          getHandle: () => ({
            query: async (_: string, slice: { from: number; length: number }) =>
              Array.from({ length: slice.length - slice.from }, (_, i) => answer(slice.from + i)),
          }),
        },
      }) as unknown as Client;
    const down = {
      get: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      },
      put: async () => {},
    };
    const said: string[] = [];
    const reader = new TranscriptReader(querying(message), { store: down, log: (line) => said.push(line) });
    expect(await reader.read(request(3))).toEqual(messages(3));
    expect(reader.queries).toBe(1);
    expect(said).toEqual([
      expect.stringMatching(/did not answer a read of wf\/r1 \(connect ECONNREFUSED.*the run is asked instead/),
    ]);
    // The next failed read is not told again: in an outage every turn fails its read.
    expect(await reader.read(request(4))).toEqual(messages(4));
    expect([reader.queries, said.length]).toEqual([2, 1]);
    const lying = new TranscriptReader(
      querying((n) => ({ role: 'user', content: `other ${n}` })),
      { store: down, log: () => {} },
    );
    expect(await failureType(lying.read(request(3)))).toBe(TRANSCRIPT_UNAVAILABLE);
  });

  it('keeps what a workflow task tried again appended in place of what its failed try had', async () => {
    const store = new MemoryRunStore();
    const reader = new TranscriptReader(noQueries, { store });
    await reader.handOver(run, 0, 0, [message(0), message(1)]);
    // The task that appended message 1 failed; its retry appended another message at index 1.
    const retried = [message(0), { role: 'user', content: 'retried' } as TranscriptMessage];
    await reader.handOver(run, 0, 1, [retried[1]!]);
    expect(await reader.read(request(2, 0, retried))).toEqual(retried);
    expect(reader.storeReads).toBe(0);
  });
});
