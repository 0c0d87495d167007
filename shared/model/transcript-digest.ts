/**
 * A running digest of a transcript: each message's JSON chained onto the digest before it, so
 * one short string names the whole transcript up to a length. The workflow sends it with each
 * model turn; the model activity checks what it read against it, and a store that lost or
 * mixed up a message is caught before the model sees a wrong transcript.
 * Workflow-safe, deterministic.
 */
import { fnv1a64 } from '../identity/hash.js';

/** The digest of an empty transcript. */
export const EMPTY_TRANSCRIPT_DIGEST = '0000000000000000';

/** The digest after a message whose JSON is `messageJson`, following `previous`. */
export function chainDigest(previous: string, messageJson: string): string {
  return fnv1a64(`${previous}${messageJson}`);
}

/** The digest of the messages whose JSON texts are `jsons`, in order. */
export function transcriptDigest(jsons: readonly string[], from = EMPTY_TRANSCRIPT_DIGEST): string {
  let digest = from;
  for (const json of jsons) digest = chainDigest(digest, json);
  return digest;
}
