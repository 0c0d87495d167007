/**
 * A codec server for the Temporal UI and the `temporal` CLI (`--codec-endpoint`): `POST /encode`
 * and `POST /decode` run payloads through a PayloadCodec (Cairn's AES-256-GCM one), in Temporal's
 * codec-server JSON format `{"payloads":[{"metadata":{"<key>":"<base64>"},"data":"<base64>"}]}`.
 * It answers the browser's CORS preflight for the UI's origin and can require an Authorization
 * header. Node-only (node:http). docs/encryption.md.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { constantTimeEquals } from './payload-codec.js';

/** The port `cairn codec-server` listens on by default. */
export const DEFAULT_CODEC_PORT = 8888;
/** The Temporal UI of a local dev server, allowed by default. */
export const DEFAULT_UI_ORIGIN = 'http://localhost:8233';
/** The environment variable with the Authorization header value the codec server requires (none when unset). */
export const CODEC_AUTH_ENV = 'CAIRN_CODEC_AUTH';
/** The headers the Temporal UI sends with codec requests. */
export const ALLOWED_HEADERS = 'Content-Type, X-Namespace, Authorization';

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface CodecServerOptions {
  /** The codecs, applied like a data converter's `payloadCodecs` (encode in order, decode in reverse). */
  readonly codecs: readonly PayloadCodec[];
  /** Default 8888; 0 for a free port. */
  readonly port?: number;
  /** Default 127.0.0.1 (this machine only). */
  readonly host?: string;
  /** Browser origins allowed to call it (the Temporal UI's); `*` allows any. Default http://localhost:8233. */
  readonly origins?: readonly string[];
  /** The exact Authorization header value a request must carry (e.g. `Bearer <token>`); none checked when unset. */
  readonly authorization?: string;
  /** A line per refused or failed request. */
  readonly log?: (line: string) => void;
}

export interface CodecServer {
  /** `http://<host>:<port>`: what `--codec-endpoint` and the UI's codec endpoint take. */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

/** A JSON payload of the codec-server protocol: protobuf JSON, bytes as base64. */
export interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/** Starts listening; resolves once it does. */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const origins = options.origins?.length ? options.origins : [DEFAULT_UI_ORIGIN];
  const host = options.host ?? '127.0.0.1';
  const server = createServer((request, response) => {
    handle(request, response, { ...options, origins }).catch((error: unknown) => {
      options.log?.(`codec server: ${(error as Error).message}`);
      if (!response.headersSent) send(response, 500, 'Internal error');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_CODEC_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  options: CodecServerOptions & { origins: readonly string[] },
): Promise<void> {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (!options.origins.includes('*') && !options.origins.includes(origin)) {
      options.log?.(`codec server: refused origin ${origin} (allowed: ${options.origins.join(', ')})`);
      return send(response, 403, `Origin ${origin} is not allowed; start the codec server with --origin ${origin}`);
    }
    response.setHeader('Access-Control-Allow-Origin', origin);
    response.setHeader('Access-Control-Allow-Credentials', 'true');
    response.setHeader('Vary', 'Origin');
  }
  const path = new URL(request.url ?? '/', 'http://codec').pathname.replace(/\/+$/, '');
  const operation = path.endsWith('/encode') ? 'encode' : path.endsWith('/decode') ? 'decode' : undefined;
  if (request.method === 'OPTIONS') {
    // The browser's preflight carries no credentials: answered without the auth check.
    response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    response.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    response.setHeader('Access-Control-Max-Age', '600');
    response.writeHead(operation ? 204 : 404).end();
    return;
  }
  if (!operation) return send(response, 404, 'Not found: POST /encode or /decode');
  if (request.method !== 'POST') {
    response.setHeader('Allow', 'POST, OPTIONS');
    return send(response, 405, `${request.method} is not allowed: POST /${operation}`);
  }
  if (
    options.authorization !== undefined &&
    !constantTimeEquals(request.headers.authorization ?? '', options.authorization)
  ) {
    options.log?.(`codec server: refused /${operation} without the expected Authorization header`);
    return send(response, 401, 'Unauthorized: a missing or wrong Authorization header');
  }
  let body: string;
  try {
    body = await readBody(request);
  } catch (error) {
    return send(response, 413, (error as Error).message);
  }
  let payloads: Payload[];
  try {
    payloads = fromJson(JSON.parse(body));
  } catch (error) {
    return send(response, 400, `Bad request: ${(error as Error).message}`);
  }
  let result = payloads;
  try {
    if (operation === 'encode') for (const codec of options.codecs) result = await codec.encode(result);
    else for (const codec of [...options.codecs].reverse()) result = await codec.decode(result);
  } catch (error) {
    options.log?.(`codec server: /${operation} failed: ${(error as Error).message}`);
    return send(response, 400, `Cannot ${operation}: ${(error as Error).message}`);
  }
  response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ payloads: result.map(toJson) }));
}

function send(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(message);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error(`Request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `{ payloads: [...] }` of the codec-server protocol as Payloads. */
export function fromJson(body: unknown): Payload[] {
  const list = (body as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(list)) throw new Error('the body must be {"payloads": [...]}');
  return list.map((item: JsonPayload, index) => {
    if (typeof item !== 'object' || item === null) throw new Error(`payloads[${index}] is not an object`);
    const metadata: Record<string, Uint8Array> = {};
    for (const [key, value] of Object.entries(item.metadata ?? {})) {
      if (typeof value !== 'string') throw new Error(`payloads[${index}].metadata.${key} is not base64 text`);
      metadata[key] = new Uint8Array(Buffer.from(value, 'base64'));
    }
    if (item.data !== undefined && typeof item.data !== 'string')
      throw new Error(`payloads[${index}].data is not base64 text`);
    return { metadata, data: new Uint8Array(Buffer.from(item.data ?? '', 'base64')) };
  });
}

/** A Payload in the codec-server protocol's JSON form. */
export function toJson(payload: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {}))
    if (value != null) metadata[key] = Buffer.from(value).toString('base64');
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}
