/**
 * The run's transcript in workflow memory: the messages, the size of each, the running digest
 * (transcript-digest.ts), and an epoch that changes whenever earlier messages are rewritten (the
 * context policy) or handed over again, so a worker's cached copy can be reused while the epoch
 * holds. Answers the transcript Query a page at a time.
 * Workflow code (sandbox), deterministic.
 */
import { inWorkflowContext, proxySinks, workflowInfo, type Sinks } from '@temporalio/workflow';
import { fitContext, type ContextPolicy } from '../planner/index.js';
import { chainDigest, EMPTY_TRANSCRIPT_DIGEST } from '../shared/model/transcript-digest.js';
import {
  TRANSCRIPT_SINK,
  type TranscriptMessage,
  type TranscriptSinkCalls,
  type TranscriptSlice,
} from '../shared/model/transcript.js';

const sinks = proxySinks<Sinks & { [TRANSCRIPT_SINK]: TranscriptSinkCalls }>();

/** A Query answer's default ceiling in characters of JSON: far below the 2 MB payload limit. */
export const TRANSCRIPT_PAGE_CHARS = 500_000;

export class TranscriptLog {
  #messages: TranscriptMessage[] = [];
  #sizes: number[] = [];
  /** The digest of the messages so far (only the last is ever read: no array of every prefix's). */
  #digest = EMPTY_TRANSCRIPT_DIGEST;
  #epoch = 0;

  constructor(messages: readonly TranscriptMessage[]) {
    this.#push(messages);
    this.#hand(0);
  }

  #push(messages: readonly TranscriptMessage[]): void {
    for (const m of messages) {
      const json = JSON.stringify(m);
      this.#digest = chainDigest(this.#digest, json);
      this.#messages.push(m);
      this.#sizes.push(json.length);
    }
  }

  /**
   * Hands the messages from `from` on to the worker (TRANSCRIPT_SINK): its model activity then
   * reads them without a Query round trip. Not while replaying, when nobody reads them.
   */
  #hand(from: number): void {
    if (from < this.#messages.length && inWorkflowContext() && !workflowInfo().unsafe.isReplaying)
      sinks[TRANSCRIPT_SINK].append(this.#epoch, from, this.#messages.slice(from));
  }

  get messages(): readonly TranscriptMessage[] {
    return this.#messages;
  }

  get length(): number {
    return this.#messages.length;
  }

  get epoch(): number {
    return this.#epoch;
  }

  /** The digest of the whole transcript as it stands. */
  get digest(): string {
    return this.#digest;
  }

  append(messages: readonly TranscriptMessage[]): void {
    const from = this.#messages.length;
    this.#push(messages);
    this.#hand(from);
  }

  /** Applies the context policy; a rewrite starts a new epoch. */
  fit(policy: ContextPolicy): void {
    const fitted = fitContext(this.#messages, this.#sizes, policy);
    if (!fitted) return;
    this.#restart(fitted.messages);
  }

  /**
   * Hands the whole transcript over again under a new epoch: a model turn found what it was
   * handed wrong (a store holding another value under its key, a value cut short).
   */
  handOverAgain(): void {
    this.#restart(this.#messages);
  }

  #restart(messages: readonly TranscriptMessage[]): void {
    this.#messages = [];
    this.#sizes = [];
    this.#digest = EMPTY_TRANSCRIPT_DIGEST;
    this.#epoch++;
    this.#push(messages);
    this.#hand(0);
  }

  /** One page of the transcript Query. Takes any argument: a Query handler that throws answers nothing useful. */
  page(slice?: TranscriptSlice): TranscriptMessage[] {
    const from = Math.max(0, Math.trunc(Number(slice?.from) || 0));
    const end = Math.min(
      this.#messages.length,
      slice?.length === undefined ? Infinity : Math.trunc(Number(slice.length) || 0),
    );
    const budget = Number(slice?.maxChars) > 0 ? Number(slice!.maxChars) : TRANSCRIPT_PAGE_CHARS;
    const page: TranscriptMessage[] = [];
    let chars = 0;
    for (let i = from; i < end; i++) {
      if (page.length > 0 && chars + this.#sizes[i]! > budget) break;
      page.push(this.#messages[i]!);
      chars += this.#sizes[i]!;
    }
    return page;
  }
}
