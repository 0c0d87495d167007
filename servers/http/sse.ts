/**
 * A Server-Sent Events response from an async source of frames: sent as they come, a comment
 * line every `keepAliveMs` so proxies keep an idle stream open, and the source stopped (its
 * AbortSignal fired) when the client goes away. Node-only (client side).
 */

export interface SseFrame {
  /** The `id:` line: a Cairn stream offset, so `Last-Event-ID` resumes exactly. */
  readonly id?: number | string;
  readonly data: string;
}

const KEEP_ALIVE_MS = 15_000;

/** One frame as text. Data never holds a raw newline (it is JSON). */
export function sseFrame(frame: SseFrame): string {
  return `${frame.id === undefined ? '' : `id: ${frame.id}\n`}data: ${frame.data}\n\n`;
}

export function sseResponse(
  source: (signal: AbortSignal) => AsyncIterable<string>,
  headers: Record<string, string>,
  options: {
    readonly keepAliveMs?: number;
    readonly onError?: (error: unknown) => string | undefined | Promise<string | undefined>;
    readonly onClose?: () => void;
  } = {},
): Response {
  const abort = new AbortController();
  const encoder = new TextEncoder();
  let timer: NodeJS.Timeout | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setInterval(
        () => controller.enqueue(encoder.encode(': keep-alive\n\n')),
        options.keepAliveMs ?? KEEP_ALIVE_MS,
      );
      timer.unref();
      void (async () => {
        try {
          for await (const text of source(abort.signal)) controller.enqueue(encoder.encode(text));
        } catch (error) {
          const last = abort.signal.aborted
            ? undefined
            : await Promise.resolve(options.onError?.(error)).catch(() => undefined);
          if (last) controller.enqueue(encoder.encode(last));
        } finally {
          clearInterval(timer);
          options.onClose?.();
          if (!abort.signal.aborted) controller.close();
        }
      })();
    },
    cancel() {
      clearInterval(timer);
      abort.abort(new Error('The client went away.'));
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...headers,
    },
  });
}
