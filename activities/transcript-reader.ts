/**
 * Reads a run's transcript for a model turn through the transcript Query, a page at a time, and
 * keeps what it read per run on this worker: the next turn asks only for the messages added since
 * (the transcript only grows until its epoch changes). Bounded by runs and by characters kept.
 * Worker side only.
 */
import type { Client } from '@temporalio/client';
import type { RunModelRequest } from '../shared/model/model-response.js';
import { TRANSCRIPT_QUERY, type TranscriptMessage, type TranscriptSlice } from '../shared/model/transcript.js';

/** Characters of JSON asked per Query answer: far below the payload limit. */
const PAGE_CHARS = 500_000;

interface Cached {
  readonly epoch: number;
  readonly messages: TranscriptMessage[];
  chars: number;
}

export interface TranscriptReaderOptions {
  /** Runs whose transcript is kept (least recently used first out). Default 256. */
  readonly maxRuns?: number;
  /** Characters of JSON kept over all runs. Default 32 million. */
  readonly maxChars?: number;
}

export class TranscriptReader {
  // Insertion order is use order: every read re-inserts its run.
  readonly #runs = new Map<string, Cached>();
  #chars = 0;
  readonly #maxRuns: number;
  readonly #maxChars: number;

  constructor(
    private readonly client: Client,
    options: TranscriptReaderOptions = {},
  ) {
    this.#maxRuns = options.maxRuns ?? 256;
    this.#maxChars = options.maxChars ?? 32_000_000;
  }

  /** Queries made so far (for tests and benches). */
  queries = 0;

  async read(request: RunModelRequest): Promise<TranscriptMessage[]> {
    const key = `${request.workflowId}/${request.runId}`;
    const epoch = request.transcriptEpoch ?? 0;
    let cached = this.#take(key);
    if (!cached || cached.epoch !== epoch || cached.messages.length > request.transcriptLength)
      cached = { epoch, messages: [], chars: 0 };
    const handle = this.client.workflow.getHandle(request.workflowId, request.runId);
    while (cached.messages.length < request.transcriptLength) {
      const slice: TranscriptSlice = {
        from: cached.messages.length,
        length: request.transcriptLength,
        maxChars: PAGE_CHARS,
      };
      this.queries++;
      const page = await handle.query<TranscriptMessage[], [TranscriptSlice]>(TRANSCRIPT_QUERY, slice);
      if (page.length === 0)
        throw new Error(
          `The transcript of ${key} has fewer than ${request.transcriptLength} messages (epoch ${epoch}).`,
        );
      cached.messages.push(...page);
      cached.chars += page.reduce((sum, m) => sum + JSON.stringify(m).length, 0);
    }
    this.#keep(key, cached);
    return cached.messages.slice(0, request.transcriptLength);
  }

  /**
   * Messages a run on this worker appended to its transcript (its TRANSCRIPT_SINK), `from` their
   * index: kept when they continue what is kept of that run at that epoch (or start it), so its
   * next model turn reads them without a Query. Anything else is ignored: the Query reads it then.
   */
  offer(
    run: { readonly workflowId: string; readonly runId: string },
    epoch: number,
    from: number,
    messages: readonly TranscriptMessage[],
  ): void {
    const key = `${run.workflowId}/${run.runId}`;
    let cached = this.#take(key);
    if (from === 0) cached = { epoch, messages: [], chars: 0 };
    if (!cached) return;
    if (cached.epoch === epoch && cached.messages.length === from) {
      cached.messages.push(...messages);
      cached.chars += messages.reduce((sum, m) => sum + JSON.stringify(m).length, 0);
    }
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
