/**
 * The PayloadStore of oversize tool results on a run store: one stored value per result, under a
 * random reference, so `read_result` pages through it from any worker of the fleet. Worker side only.
 */
import { randomUUID } from 'node:crypto';
import { PAYLOAD_REF, payloadSlice, type PayloadStore } from '../../shared/tools/payload-store.js';
import { storedResultKey, type RunStore } from '../../shared/storage/run-store.js';

export function runStorePayloads(store: RunStore): PayloadStore {
  return {
    async put(text) {
      const ref = randomUUID();
      await store.put([[storedResultKey(ref), text]]);
      return ref;
    },
    async read(ref, offset, length) {
      if (!PAYLOAD_REF.test(ref)) return undefined;
      const [text] = await store.get([storedResultKey(ref)]);
      return text === undefined ? undefined : payloadSlice(text, offset, length);
    },
  };
}
