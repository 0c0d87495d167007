/** read_result: the model pages through a stored oversize result, a slice at a time. */
import { describe, expect, it } from 'vitest';
import { ToolFailure } from '../failures/tool-failure.js';
import { MAX_READ_RESULT_CHARS } from '../size-limits.js';
import type { PayloadStore } from './payload-store.js';
import { DEFAULT_READ_RESULT_CHARS, readResult } from './read-result.js';

const TEXT = JSON.stringify({ rows: Array.from({ length: 50 }, (_, i) => i) });

/** A store holding TEXT under `r-1`. */
const store: PayloadStore = {
  put: async () => 'r-1',
  read: async (ref, offset, length) =>
    ref === 'r-1' ? { text: TEXT.slice(offset, offset + length), total: TEXT.length } : undefined,
};
const context = (payloads?: PayloadStore) => ({ payloads }) as Parameters<typeof readResult.execute>[1];
const read = async (args: unknown, payloads: PayloadStore | null = store) =>
  await readResult.execute(readResult.input.parse(args), context(payloads ?? undefined));

describe('read_result', () => {
  it('returns a slice and where the next one starts', async () => {
    expect(await read({ ref: 'r-1', offset: 10, length: 20 })).toEqual({
      ref: 'r-1',
      offset: 10,
      text: TEXT.slice(10, 30),
      total: TEXT.length,
      next: { ref: 'r-1', offset: 30, length: 20 },
    });
  });

  it('says there is nothing more at the end of the text', async () => {
    const last = await read({ ref: 'r-1', offset: TEXT.length - 5, length: 20 });
    expect(last).toMatchObject({ text: TEXT.slice(-5), next: null });
    expect(await read({ ref: 'r-1', offset: TEXT.length - 20, length: 20 })).toMatchObject({ next: null });
  });

  it('reads from the start, 16,384 characters, when the model gives only the ref', async () => {
    expect(readResult.input.parse({ ref: 'r-1' })).toEqual({
      ref: 'r-1',
      offset: 0,
      length: DEFAULT_READ_RESULT_CHARS,
    });
    expect(await read({ ref: 'r-1' })).toMatchObject({ offset: 0, text: TEXT, next: null });
  });

  it('refuses an empty ref, a negative offset and a length over 64 Ki characters', () => {
    for (const args of [
      { ref: '' },
      { ref: 'x'.repeat(201) },
      { ref: 'r', offset: -1 },
      { ref: 'r', offset: 1.5 },
      { ref: 'r', length: 0 },
      { ref: 'r', length: MAX_READ_RESULT_CHARS + 1 },
    ]) {
      expect(readResult.input.safeParse(args).success).toBe(false);
    }
    expect(readResult.input.safeParse({ ref: 'x'.repeat(200), length: MAX_READ_RESULT_CHARS }).success).toBe(true);
  });

  it("an unknown ref is the model's mistake, with how to fix it (or the result's time in the store is up)", async () => {
    const failure = await read({ ref: 'r-2' }).catch((e: unknown) => e);
    expect(ToolFailure.isInstance(failure) && failure.code).toBe('invalid_arguments');
    expect((failure as Error).message).toBe(
      'No stored result has ref "r-2"; use the ref from the message of the cut result. ' +
        'A result stored longer ago than the store keeps results is gone: call its tool again.',
    );
  });

  it('a worker without a store makes the tool unavailable', async () => {
    const failure = await read({ ref: 'r-1' }, null).catch((e: unknown) => e);
    expect(ToolFailure.isInstance(failure) && failure.code).toBe('tool_unavailable');
    expect((failure as Error).message).toBe('This worker keeps no stored results (no PayloadStore is configured).');
  });

  it('is a read-only tool the model can find', () => {
    expect(readResult.name).toBe('read_result');
    expect(readResult.sideEffects).toBe('none');
    expect(readResult.description).toMatch(/^Read more of a tool result that was too large to show whole/);
  });
});
