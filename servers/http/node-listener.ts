/**
 * Node's `http` (and Express, Fastify's raw handler) in front of a `Request → Response` handler:
 * the request body streams in (the handler bounds it), the response streams out (SSE flushed as
 * it comes), and a client that goes away aborts the Request's `signal` (as fetch's servers do: an
 * MCP 2026-07-28 call the client abandons cancels the run it started) and cancels the response's
 * stream. Node-only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { CairnHttpHandler } from './cairn-http-handler.js';

export function toNodeListener(handler: CairnHttpHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void serve(handler, req, res).catch(() => res.destroy());
  };
}

async function serve(handler: CairnHttpHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const host = req.headers.host ?? 'localhost';
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else if (value !== undefined) headers.set(key, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  // Closed before the whole response went out: the client went away.
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort(new Error('the client closed the connection'));
  });
  const request = new Request(`http://${host}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    signal: gone.signal,
    ...(hasBody && { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' }),
  });
  const response = await handler(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
    if (done) break;
    if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
  // A body the handler refused unread (413) must not keep the socket busy.
  if (hasBody && !req.readableEnded) req.resume();
}
