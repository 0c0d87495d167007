/**
 * Reads a run's transcript for a model turn and keeps what it read per run on this worker: the
 * next turn reads only the messages added since (the transcript only grows until its epoch
 * changes). Bounded by runs and by characters kept.
 *
 * With a run store (the fleet's: run-store.ts) the messages are read from it: each run hands what it
 * appends to its worker (the transcript sink), which writes it there beside the workflow task's
 * completion, not before it, so a model turn on any worker reads them without asking the workflow.
 * A read that misses a message still being written waits for it, briefly. Without a store, they
 * come through the transcript Query, a page at a time; so are messages the store fails to give or
 * no longer has. Either way what is read is checked against the run's digest; a message different
 * from the run's is a TRANSCRIPT_UNAVAILABLE failure, and the run hands its transcript over again.
 * Worker side only.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { RunModelRequest } from '../shared/model/model-response.js';
import {
  TRANSCRIPT_QUERY,
  TRANSCRIPT_UNAVAILABLE,
  type TranscriptMessage,
  type TranscriptSlice,
} from '../shared/model/transcript.js';
import { chainDigest, EMPTY_TRANSCRIPT_DIGEST } from '../shared/model/transcript-digest.js';
import { transcriptKey, type RunStore, type TranscriptRun } from '../shared/storage/run-store.js';
import { withTimeout } from './with-timeout.js';

/** Characters of JSON asked per Query answer: far below the payload limit. */
const PAGE_CHARS = 500_000;
/** How long a transcript Query may wait for the run's worker. */
const QUERY_MS = 10_000;

/** Keys asked of the store at once. */
const KEYS_PER_READ = 1_000;
/** Waits before each new try of a write the store failed. */
const WRITE_RETRIES_MS = [100, 500, 2_000];
/**
 * How long a hand-over's write may take over all its tries (and a stopping worker waits for the
 * writes under way): a store that stops answering costs model turns a read by Query, nothing more.
 */
const HAND_OVER_MS = 4_000;
/**
 * After a hand-over gave up, the next ones for this long make one short try each (a store that is
 * down would otherwise hold every run's writes, one after another, for the whole time above).
 */
const FAILING_FOR_MS = 10_000;
const FAILING_TRY_MS = 1_000;
/**
 * A message the store does not have yet may still be on its way (a hand-over is written while its
 * workflow task completes, on whichever worker ran it): when the messages missing are the last
 * ones, read again after these waits before the run is asked (sooner when it was this worker's
 * write, and it is done).
 */
const WRITE_AHEAD_WAITS_MS = [20, 80, 200, 500];

/** Why a store read stopped short; `missing`: the last messages are not there (yet), worth a wait. */
type Short = { readonly missing: boolean; readonly why: string };

class Cached {
  readonly messages: TranscriptMessage[] = [];
  /** `digests[i]`: the digest of the first i + 1 messages. */
  readonly digests: string[] = [];
  chars = 0;
  constructor(readonly epoch: number) {}

  /** Keeps the first `length` messages (a workflow task tried again appends from there). */
  cut(length: number): void {
    for (const message of this.messages.splice(length)) this.chars -= JSON.stringify(message).length;
    this.digests.length = length;
  }

  add(message: TranscriptMessage, json: string): void {
    this.digests.push(chainDigest(this.digestAt(this.messages.length), json));
    this.messages.push(message);
    this.chars += json.length;
  }

  /** The digest of the first `length` messages. */
  digestAt(length: number): string {
    return length === 0 ? EMPTY_TRANSCRIPT_DIGEST : this.digests[length - 1]!;
  }
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const unavailable = (message: string) => ApplicationFailure.nonRetryable(message, TRANSCRIPT_UNAVAILABLE);

export interface TranscriptReaderOptions {
  /** The fleet's run store: transcripts are written to it and read from it, never through a Query. */
  readonly store?: RunStore;
  /** Where a write the store failed is told (default: console.warn). */
  readonly log?: (message: string) => void;
  /** Runs whose transcript is kept (least recently used first out). Default 256. */
  readonly maxRuns?: number;
  /** Characters of JSON kept over all runs. Default 32 million. */
  readonly maxChars?: number;
  /** How long a hand-over may wait on the store over all its tries, in ms. Default 4,000. */
  readonly handOverMs?: number;
  /** How long a transcript Query may wait for the run's worker, in ms. Default 10,000. */
  readonly queryMs?: number;
}

export class TranscriptReader {
  // Insertion order is use order: every read re-inserts its run.
  readonly #runs = new Map<string, Cached>();
  #chars = 0;
  readonly #maxRuns: number;
  readonly #maxChars: number;
  readonly #store: RunStore | undefined;
  readonly #log: (message: string) => void;
  readonly #handOverMs: number;
  readonly #queryMs: number;
  /** Until when the store is taken to be failing (a hand-over gave up): one short try a hand-over. */
  #failingUntil = 0;
  /** When a read the store failed was last told (told at most once per FAILING_FOR_MS). */
  #readFailureToldAt = Number.NEGATIVE_INFINITY;
  /** Each run's hand-overs still being written, in order (the last one settles after all before it). */
  readonly #writing = new Map<string, Promise<void>>();

  constructor(
    private readonly client: Client,
    options: TranscriptReaderOptions = {},
  ) {
    this.#maxRuns = options.maxRuns ?? 256;
    this.#maxChars = options.maxChars ?? 32_000_000;
    this.#store = options.store;
    this.#log = options.log ?? ((message) => console.warn(message));
    this.#handOverMs = options.handOverMs ?? HAND_OVER_MS;
    this.#queryMs = options.queryMs ?? QUERY_MS;
  }

  /** Queries made so far (for tests and benches). */
  queries = 0;
  /** Messages read from the run store so far (for tests and benches). */
  storeReads = 0;

  async read(request: RunModelRequest): Promise<TranscriptMessage[]> {
    const key = `${request.workflowId}/${request.runId}`;
    const epoch = request.transcriptEpoch ?? 0;
    const length = request.transcriptLength;
    let cached = this.#take(key);
    if (!cached || cached.epoch !== epoch || cached.messages.length > length) cached = new Cached(epoch);
    // A request without a digest comes from code that hands nothing to the store (a run from before
    // it, a workflow of your own calling this activity): that run is asked, as before.
    if (this.#store && request.transcriptDigest !== undefined) {
      // The store is a copy of what history holds, never the only one: what it cannot give (it
      // failed, or lost a message to a TTL, an eviction or a write that failed) the run is asked
      // for, and what the run answers is checked against the digest as well.
      const store = this.#store;
      const readStore = () =>
        this.#readStore(store, request, cached).catch((err: unknown): Short => {
          if (err instanceof ApplicationFailure) throw err;
          return { missing: false, why: `did not answer a read of ${key} (${errorText(err)})` };
        });
      let short = await readStore();
      for (const wait of WRITE_AHEAD_WAITS_MS) {
        if (!short?.missing) break;
        const elapsed = new Promise((resolve) => setTimeout(resolve, wait));
        const writing = this.#writing.get(key);
        await (writing ? Promise.race([writing, elapsed]) : elapsed);
        short = await readStore();
      }
      if (short !== undefined) {
        if (Date.now() - this.#readFailureToldAt >= FAILING_FOR_MS) {
          this.#readFailureToldAt = Date.now();
          this.#log(
            `Cairn: the run store ${short.why}; the run is asked instead (told once in ${FAILING_FOR_MS / 1000} s).`,
          );
        }
        await this.#readQuery(request, cached);
      }
    } else await this.#readQuery(request, cached);
    const expected = request.transcriptDigest;
    // What was read is dropped, not kept: the run hands it over again under a new epoch.
    if (expected !== undefined && cached.digestAt(length) !== expected)
      throw unavailable(
        `The transcript of ${key} read for this turn is not the one the run sent (epoch ${epoch}, ${length} messages).`,
      );
    this.#keep(key, cached);
    return cached.messages.slice(0, length);
  }

  /** Reads into `cached` what the store has; says why it stopped short, if it did. */
  async #readStore(store: RunStore, request: RunModelRequest, cached: Cached): Promise<Short | undefined> {
    const run = { workflowId: request.workflowId, runId: request.runId };
    while (cached.messages.length < request.transcriptLength) {
      const from = cached.messages.length;
      const to = Math.min(request.transcriptLength, from + KEYS_PER_READ);
      const keys = Array.from({ length: to - from }, (_, i) => transcriptKey(run, cached.epoch, from + i));
      const values = await store.get(keys);
      for (const [i, json] of values.entries()) {
        const at = `message ${from + i} of ${run.workflowId}/${run.runId} (epoch ${cached.epoch})`;
        // Only a missing tail may still be on its way (a run's writes go in order); a hole with later
        // messages present was lost (a TTL, an eviction): the run is asked at once.
        if (json === undefined)
          return { missing: !values.slice(i + 1).some((v) => v !== undefined), why: `has no ${at}` };
        let message: TranscriptMessage;
        try {
          message = JSON.parse(json) as TranscriptMessage;
        } catch {
          throw unavailable(`The run store's ${at} is not JSON.`);
        }
        cached.add(message, json);
        this.storeReads++;
      }
    }
    return undefined;
  }

  async #readQuery(request: RunModelRequest, cached: Cached): Promise<void> {
    const handle = this.client.workflow.getHandle(request.workflowId, request.runId);
    while (cached.messages.length < request.transcriptLength) {
      const slice: TranscriptSlice = {
        from: cached.messages.length,
        length: request.transcriptLength,
        maxChars: PAGE_CHARS,
      };
      this.queries++;
      // Bounded: a run whose worker does not answer fails this attempt (retried), not the whole
      // model turn's time.
      const page = await this.client.withDeadline(Date.now() + this.#queryMs, () =>
        handle.query<TranscriptMessage[], [TranscriptSlice]>(TRANSCRIPT_QUERY, slice),
      );
      if (page.length === 0)
        throw new Error(
          `The transcript of ${request.workflowId}/${request.runId} has fewer than ${request.transcriptLength} messages (epoch ${cached.epoch}).`,
        );
      for (const message of page) cached.add(message, JSON.stringify(message));
    }
  }

  /**
   * What a run on this worker appended to its transcript (its TRANSCRIPT_SINK), `from` its index:
   * kept here, so the next model turn on this worker reads nothing, and written to the run store,
   * if there is one, so a model turn on any worker finds it. Settles once written (or given up);
   * the worker does not hold the workflow task for it (a read on another worker that comes first
   * waits for it, or asks the run). A write the store keeps failing is logged and left: the model
   * turn that misses it asks the run by Query.
   */
  handOver(run: TranscriptRun, epoch: number, from: number, messages: readonly TranscriptMessage[]): Promise<void> {
    const jsons = messages.map((m) => JSON.stringify(m));
    this.#offer(run, epoch, from, messages, jsons);
    const store = this.#store;
    if (!store) return Promise.resolve();
    const entries = jsons.map((json, i) => [transcriptKey(run, epoch, from + i), json] as const);
    const key = `${run.workflowId}/${run.runId}`;
    // In order per run: a workflow task tried again overwrites what its failed try wrote, never the other way round.
    // Never rejects (a store or a log that throws is told, and the run's next writes still go): nobody awaits it.
    const written = (this.#writing.get(key) ?? Promise.resolve())
      .then(() => this.#write(store, run.workflowId, entries))
      .catch((err: unknown) => this.#tell(`Cairn: a transcript write of ${run.workflowId} failed: ${errorText(err)}`))
      .finally(() => {
        if (this.#writing.get(key) === written) this.#writing.delete(key);
      });
    this.#writing.set(key, written);
    return written;
  }

  /** A line for the log; a log that throws loses the line, nothing else. */
  #tell(line: string): void {
    try {
      this.#log(line);
    } catch {
      // the log's own failure is not the run's
    }
  }

  /** Waits, up to a hand-over's time, for the writes still under way (a worker that stops). */
  async drain(): Promise<void> {
    await withTimeout(Promise.all(this.#writing.values()), this.#handOverMs, 'no answer in time').catch(() => {});
  }

  async #write(store: RunStore, workflowId: string, entries: readonly (readonly [string, string])[]): Promise<void> {
    const failing = Date.now() < this.#failingUntil;
    const deadline = Date.now() + (failing ? Math.min(FAILING_TRY_MS, this.#handOverMs) : this.#handOverMs);
    const retries = failing ? [] : WRITE_RETRIES_MS;
    let why = '';
    for (let attempt = 0; attempt <= retries.length; attempt++) {
      const put = Promise.resolve().then(() => store.put(entries));
      const failed = await withTimeout(put, deadline - Date.now(), 'no answer in time').then(
        () => undefined,
        (err: unknown) => errorText(err),
      );
      if (failed === undefined) {
        if (failing) this.#tell('Cairn: the run store takes transcript messages again.');
        this.#failingUntil = 0;
        return;
      }
      why = failed;
      // A try cut off at the deadline leaves no time for another.
      const wait = retries[attempt] ?? Number.POSITIVE_INFINITY;
      if (Date.now() + wait >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    // Told once an outage, not once a workflow task.
    if (!failing)
      this.#tell(
        `Cairn: the run store did not take ${entries.length} transcript messages of ${workflowId} (${why}); its next model turn reads them by Query. For ${FAILING_FOR_MS / 1000} s, each hand-over makes one short try.`,
      );
    this.#failingUntil = Date.now() + FAILING_FOR_MS;
  }

  /** Kept when they continue what is kept of that run at that epoch (or start it); anything else is read when asked. */
  #offer(
    run: TranscriptRun,
    epoch: number,
    from: number,
    messages: readonly TranscriptMessage[],
    jsons: readonly string[],
  ): void {
    const key = `${run.workflowId}/${run.runId}`;
    let cached = this.#take(key);
    if (from === 0) cached = new Cached(epoch);
    if (!cached) return;
    if (cached.epoch === epoch && cached.messages.length > from) cached.cut(from);
    if (cached.epoch === epoch && cached.messages.length === from)
      for (const [i, message] of messages.entries()) cached.add(message, jsons[i]!);
    this.#keep(key, cached);
  }

  #take(key: string): Cached | undefined {
    const cached = this.#runs.get(key);
    if (cached) {
      this.#runs.delete(key);
      this.#chars -= cached.chars;
    }
    return cached;
  }

  #keep(key: string, cached: Cached): void {
    // What a hand-over kept meanwhile (while a read of the same run waited) gives way to this one.
    this.#take(key);
    this.#runs.set(key, cached);
    this.#chars += cached.chars;
    for (const [oldest, entry] of this.#runs) {
      if (this.#runs.size <= this.#maxRuns && this.#chars <= this.#maxChars) break;
      if (oldest === key) break;
      this.#runs.delete(oldest);
      this.#chars -= entry.chars;
    }
  }
}
