/** The transcript in workflow memory: pages for the Query, epochs for readers' caches. */
import { describe, expect, it } from 'vitest';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import { EMPTY_TRANSCRIPT_DIGEST, transcriptDigest } from '../shared/model/transcript-digest.js';
import { TranscriptLog } from './transcript-log.js';

const note = (n: number, chars = 10): TranscriptMessage => ({ role: 'user', content: `${n}:${'x'.repeat(chars)}` });

describe('TranscriptLog', () => {
  it('pages by characters, always at least one message, up to `length`', () => {
    const log = new TranscriptLog(Array.from({ length: 10 }, (_, i) => note(i, 100)));
    const size = JSON.stringify(note(0, 100)).length;
    expect(log.page({ from: 0, length: 10, maxChars: size * 3 })).toHaveLength(3);
    expect(log.page({ from: 8, length: 10, maxChars: 1 })).toEqual([note(8, 100)]);
    expect(log.page({ from: 2, length: 4 })).toEqual([note(2, 100), note(3, 100)]);
    expect(log.page()).toHaveLength(10);
  });

  it('answers any argument instead of throwing', () => {
    const log = new TranscriptLog([note(0), note(1)]);
    for (const bad of [undefined, null, 'x', { from: 'a' }, { from: -5, length: 99 }, { length: NaN }])
      expect(() => log.page(bad as never)).not.toThrow();
    expect(log.page({ from: -5, length: 99 } as never)).toHaveLength(2);
  });

  it('starts a new epoch only when the context policy rewrites earlier messages', () => {
    const log = new TranscriptLog([{ role: 'system', content: 's' }, note(0)]);
    log.fit({ maxChars: 10_000, keepRecentTurns: 1, oldResultChars: 100 });
    expect(log.epoch).toBe(0);
    for (let i = 0; i < 50; i++) {
      log.append([
        { role: 'assistant', content: '', toolCalls: [{ toolCallId: `${i}.1`, name: 't', args: {} }] },
        { role: 'tool', toolCallId: `${i}.1`, name: 't', content: 'y'.repeat(500) },
      ]);
    }
    log.fit({ maxChars: 10_000, keepRecentTurns: 1, oldResultChars: 100 });
    expect(log.epoch).toBe(1);
    expect(log.page().reduce((sum, m) => sum + JSON.stringify(m).length, 0)).toBeLessThanOrEqual(10_000);
  });

  it('names the transcript by a digest of its messages, which a rewrite or a hand-over keeps in step', () => {
    const log = new TranscriptLog([]);
    expect(log.digest).toBe(EMPTY_TRANSCRIPT_DIGEST);
    log.append([note(0), note(1)]);
    const digest = log.digest;
    expect(digest).toBe(transcriptDigest([note(0), note(1)].map((m) => JSON.stringify(m))));
    expect(digest).not.toBe(transcriptDigest([note(1), note(0)].map((m) => JSON.stringify(m))));
    log.handOverAgain();
    expect([log.epoch, log.length, log.digest]).toEqual([1, 2, digest]);
    for (let i = 2; i < 60; i++) log.append([note(i, 500)]);
    log.fit({ maxChars: 5_000, keepRecentTurns: 1, oldResultChars: 100 });
    expect(log.digest).toBe(transcriptDigest(log.page().map((m) => JSON.stringify(m))));
  });
});
