/**
 * Shrinks a transcript before continue-as-new: large tool results from earlier turns become a
 * short marker, so the carried state stays far below Temporal's payload limits. Deterministic.
 */
import type { TranscriptMessage } from '../shared/transcript.js';

const KEEP_RECENT = 12;
const MAX_OLD_RESULT_CHARS = 2_000;

export function compactTranscript(transcript: readonly TranscriptMessage[]): TranscriptMessage[] {
  const cut = transcript.length - KEEP_RECENT;
  return transcript.map((m, i) => {
    if (i >= cut || m.role !== 'tool') return m;
    const text = JSON.stringify(m.content);
    if (text.length <= MAX_OLD_RESULT_CHARS) return m;
    return { ...m, content: { compacted: true, preview: text.slice(0, 500), originalChars: text.length } };
  });
}
