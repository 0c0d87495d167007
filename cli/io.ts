/**
 * Where a command writes: text lines for people, or one JSON document for machines (`--json`).
 * Node-only.
 */

export interface Io {
  /** True under `--json`: text lines are dropped and `document` writes the one document on stdout. */
  readonly json: boolean;
  /** A line of text output (ignored under `--json`). */
  line(text: string): void;
  /** A JSON document, on one line (ignored without `--json`): most commands write one, `watch` one per event. */
  document(value: unknown): void;
  /** A diagnostic on stderr, shown in both modes. */
  error(text: string): void;
}

export interface Streams {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
}

export function createIo(json: boolean, streams: Streams = process): Io {
  return {
    json,
    line: (text) => void (json || streams.stdout.write(`${text}\n`)),
    document: (value) => void (json && streams.stdout.write(`${JSON.stringify(value)}\n`)),
    error: (text) => void streams.stderr.write(`${text}\n`),
  };
}
