/**
 * What the run's stream takes from a publisher: the Workflow Streams publish Signal
 * (`__temporal_workflow_stream_publish`, `{ items: [{ topic, data }], publisher_id, sequence }`)
 * or Cairn's publish Update of the same shape. Only live model deltas
 * (shared/live/model-delta.ts), in bounded batches, each batch once per publisher and sequence.
 * A Signal cannot be refused and a throwing handler would wedge the run, so by Signal whatever
 * does not fit is dropped whole, never thrown; the Update's validator refuses it instead.
 * Workflow code (sandbox), deterministic.
 */
import {
  isLiveTopic,
  MAX_PUBLISH_ITEM_CHARS,
  MAX_PUBLISH_ITEMS,
  type PublishInput,
} from '../shared/live/model-delta.js';
/** Publishers whose last sequence the run remembers (one per model-call attempt; old ones are done). */
const MAX_PUBLISHERS = 256;

/** The last sequence taken per publisher, newest publishers kept. */
export class PublishDedup {
  readonly #last = new Map<string, number>();

  /** True when `sequence` is new for `publisher`. */
  isNew(publisher: string, sequence: number): boolean {
    return sequence > (this.#last.get(publisher) ?? 0);
  }

  /** True when `sequence` is new for `publisher` (and remembers it). */
  take(publisher: string, sequence: number): boolean {
    if (!this.isNew(publisher, sequence)) return false;
    this.#last.delete(publisher);
    this.#last.set(publisher, sequence);
    if (this.#last.size > MAX_PUBLISHERS) this.#last.delete(this.#last.keys().next().value!);
    return true;
  }
}

/** The batch when it is well formed (live topics only, within bounds); undefined otherwise. */
export function validPublish(input: unknown): PublishInput | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const { items, publisher_id, sequence } = input as Partial<Record<keyof PublishInput, unknown>>;
  if (typeof publisher_id !== 'string' || publisher_id.length === 0 || publisher_id.length > 200) return undefined;
  if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 1) return undefined;
  if (!Array.isArray(items) || items.length === 0 || items.length > MAX_PUBLISH_ITEMS) return undefined;
  const ok = items.every(
    (item: unknown) =>
      typeof item === 'object' &&
      item !== null &&
      typeof (item as { topic?: unknown }).topic === 'string' &&
      isLiveTopic((item as { topic: string }).topic) &&
      typeof (item as { data?: unknown }).data === 'string' &&
      (item as { data: string }).data.length <= MAX_PUBLISH_ITEM_CHARS,
  );
  if (!ok) return undefined;
  return {
    publisher_id,
    sequence,
    items: (items as { topic: string; data: string }[]).map(({ topic, data }) => ({ topic, data })),
  };
}

/** The items of a valid, new batch; none for a repeat or for anything malformed. */
export function publishedItems(input: unknown, dedup: PublishDedup): readonly { topic: string; data: string }[] {
  const batch = validPublish(input);
  if (!batch || !dedup.take(batch.publisher_id, batch.sequence)) return [];
  return batch.items;
}
