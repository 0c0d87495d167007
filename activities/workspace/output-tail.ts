/**
 * The last bytes of a command's stream, in bounded memory: however much a command prints, only the
 * last `tailBytes` (plus one chunk) are held, and the total is counted. Worker only; deterministic.
 */

/** A stream's tail and its total size. */
export class OutputTail {
  private chunks: Buffer[] = [];
  private held = 0;
  /** Every byte the stream carried. */
  total = 0;

  constructor(private readonly tailBytes: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.held += chunk.length;
    // Drop whole chunks from the front while what is left still covers the tail.
    while (this.chunks.length > 1 && this.held - (this.chunks[0] as Buffer).length >= this.tailBytes) {
      this.held -= (this.chunks.shift() as Buffer).length;
    }
  }

  /** True when the tail is not the whole stream. */
  get truncated(): boolean {
    return this.total > this.tailBytes;
  }

  /** The tail as UTF-8, starting at a character boundary (never half a character). */
  text(): string {
    const all = Buffer.concat(this.chunks);
    let start = Math.max(0, all.length - this.tailBytes);
    // Skip continuation bytes (10xxxxxx) of a character whose first byte was cut off.
    for (let skipped = 0; start > 0 && skipped < 3 && start < all.length; skipped++) {
      if (((all[start] as number) & 0xc0) !== 0x80) break;
      start++;
    }
    return all.subarray(start).toString('utf8');
  }
}
