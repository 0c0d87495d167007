import { describe, expect, it } from 'vitest';
import { MemoryRunStore } from '../../testing/memory-run-store.js';
import { runStorePayloads } from './run-store-payloads.js';

describe('runStorePayloads', () => {
  it('stores a result under a random ref and reads it back a slice at a time; other refs read nothing', async () => {
    const store = new MemoryRunStore();
    const payloads = runStorePayloads(store);
    const ref = await payloads.put('0123456789', { workflowId: 'wf', toolCallId: '1.1', tool: 'search' });
    expect(await payloads.read(ref, 3, 4)).toEqual({ text: '3456', total: 10 });
    expect(await payloads.read(ref, -5, 2.9)).toEqual({ text: '01', total: 10 });
    expect(await payloads.read('../etc/passwd', 0, 10)).toBeUndefined();
    expect(await payloads.read('00000000-0000-0000-0000-000000000000', 0, 10)).toBeUndefined();
    expect(store.values.size).toBe(1);
  });
});
