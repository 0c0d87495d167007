/**
 * Reading a request's JSON body within a bound: a body over `maxBytes` is refused as it streams in
 * (413, never buffered whole), a body that is not JSON is 400, a POST that is not
 * `application/json` is 415. Refusing other media types keeps the handler CSRF-safe: a cross-site
 * HTML form cannot send JSON without a CORS preflight. Node-only (client side).
 */
import { HttpError } from './http-error.js';

export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type))
    throw new HttpError(415, 'unsupported_media_type', 'Send the body as application/json.');
  const text = await readBoundedText(request, maxBytes);
  if (text === undefined) throw new HttpError(413, 'body_too_large', `The body is larger than ${maxBytes} bytes.`);
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'malformed_json', 'The body is not valid JSON.');
  }
}

/**
 * A request's body as text, or undefined when it is over `maxBytes` (declared or as it streams in:
 * the read stops there, nothing more is buffered). Shared by the HTTP, A2A and MCP handlers.
 */
export async function readBoundedText(request: Request, maxBytes: number): Promise<string | undefined> {
  if (Number(request.headers.get('content-length') ?? 0) > maxBytes) return undefined;
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
