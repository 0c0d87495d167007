/**
 * Where a tool result too large for history goes: the worker writes the whole result to a
 * PayloadStore, history keeps what fits and a reference, and the model pages through the rest
 * with the `read_result` tool. The file-system store (activities/file-payload-store.ts) is the
 * default implementation; any shared store (an object store, a database) fits the interface.
 * Workflow-safe to import (types only).
 */

/** What is known of a stored result, for the store's own bookkeeping and clean-up. */
export interface StoredPayloadInfo {
  readonly workflowId: string;
  readonly toolCallId: string;
  readonly tool: string;
}

/** A page of a stored text. */
export interface PayloadSlice {
  /** Up to the asked length of characters, from the asked offset. */
  readonly text: string;
  /** Characters in the whole stored text. */
  readonly total: number;
}

export interface PayloadStore {
  /** Stores `text` (a result's JSON) and returns an opaque, unguessable reference to it. */
  put(text: string, info: StoredPayloadInfo): Promise<string>;
  /** Characters `[offset, offset + length)` of the text under `ref`; undefined when there is none. */
  read(ref: string, offset: number, length: number): Promise<PayloadSlice | undefined>;
}

/** What stores' refs look like: a random UUID (nothing that could name a path). */
export const PAYLOAD_REF = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Characters `[offset, offset + length)` of a stored text, as `PayloadStore.read` answers them. */
export function payloadSlice(text: string, offset: number, length: number): PayloadSlice {
  const start = Math.max(0, Math.floor(offset));
  return { text: text.slice(start, start + Math.max(0, Math.floor(length))), total: text.length };
}
