/** Serving a Cairn HTTP handler on a real port, and reading Server-Sent Events frames as they come. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeListener } from '../../servers/http/node-listener.js';
import type { CairnHttpHandler } from '../../servers/http/cairn-http-handler.js';

export interface Served {
  readonly url: string;
  close(): Promise<void>;
}

export async function serve(handler: CairnHttpHandler): Promise<Served> {
  const server: Server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', 4_096, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

/** The frames of an SSE response, one at a time (comments skipped). */
export async function* sseMessages(response: Response): AsyncGenerator<SseMessage> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':') || !line.includes(':')) continue;
          const at = line.indexOf(':');
          const key = line.slice(0, at);
          fields[key] = (fields[key] ? `${fields[key]}\n` : '') + line.slice(at + 1).replace(/^ /, '');
        }
        if (fields.data !== undefined)
          yield {
            ...(fields.id !== undefined && { id: fields.id }),
            ...(fields.event !== undefined && { event: fields.event }),
            data: fields.data,
          };
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
