/**
 * createCairnA2AHandler: other agents reach runs over A2A 1.0 (JSON-RPC binding, as
 * `@a2a-js/sdk` 1.3.0 serves it). One web-standard `Request → Response` function, mountable
 * beside the HTTP handler (`toNodeListener`, Hono, Next route handlers): the agent card of each
 * served agent at `/<agent>/.well-known/agent-card.json` (the first agent's also at
 * `/.well-known/agent-card.json`), and its JSON-RPC endpoint at `POST /<agent>` (the first agent's
 * also at `POST /`). Stateless: every task is its run, read from Temporal, so any instance —
 * or a new one after a restart — continues any task. Node-only (client side); loads
 * `@a2a-js/sdk` (an optional peer).
 */
import { A2A_VERSION_HEADER, AgentCard } from '@a2a-js/sdk';
import { A2AError } from '@a2a-js/sdk/errors';
import {
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
  type A2ARequestHandler,
} from '@a2a-js/sdk/server';
import { isLegacyJsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { Agent } from '../../shared/agent/define-agent.js';
import type { CairnClient, StartRunOptions } from '../../client/cairn-client.js';
import type { Authorize } from '../http/authorize.js';
import { HttpError } from '../http/http-error.js';
import { readBoundedText } from '../http/read-json-body.js';
import type { MaxRunsPerTenant } from '../http/tenant-limit.js';
import {
  AUTH_ERROR_KEY,
  CairnA2ARequestHandler,
  REQUEST_KEY,
  SIGNAL_KEY,
  type A2AHandlerSettings,
} from './a2a-request-handler.js';
import { agentCard, signedCard, type A2AAgentDescription } from './agent-card.js';
import { createCardSigner, type A2ACardSigning, type CardSigner } from './card-signing.js';
import { isRestPath, JSON_HEADERS, restCall, SSE_HEADERS } from './rest-binding.js';

export interface CairnA2AHandlerOptions {
  readonly client: CairnClient;
  /** The agents served, each with its own card and endpoint (the first is also served at the root). */
  readonly agents: readonly Agent[];
  /** What the cards say beyond the agents' definitions, by agent name. */
  readonly describe?: Readonly<Record<string, A2AAgentDescription>>;
  /** Asked before every act, as the HTTP handler asks (`bearerToken(token)`…). Default: everything is allowed. */
  readonly authorize?: Authorize;
  /** Where the handler is mounted, e.g. `/a2a`. Default: the root. */
  readonly basePath?: string;
  /** The public URL the handler is reached at (behind a proxy), for the cards' interface URLs. Default: the request's origin and basePath. */
  readonly publicUrl?: string;
  /** The largest request body, in bytes. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Task ids of runs started here: this prefix, the agent's name, a dash and a UUID. Default `cairn-a2a-`. */
  readonly taskPrefix?: string;
  /** How long a blocking SendMessage waits for the run to need someone or finish, in ms. Default 60,000 (then the working task is returned: poll GetTask or subscribe). */
  readonly maxWaitMs?: number;
  /** More start options for the runs messages start (model, policy, Temporal options). */
  readonly startOptions?: A2AHandlerSettings['startOptions'];
  /**
   * Runs in flight per tenant, as the HTTP handler's option (fleet-wide, through visibility): a
   * message of a tenant at its limit that would start a task gets HTTP 429 with Retry-After
   * (JSON-RPC -32600, `tenant_runs_limit`). A number, or per tenant. Default: none.
   */
  readonly maxRunsPerTenant?: MaxRunsPerTenant;
  /** The address (`host:port`) of a gRPC server serving these agents (`cairnA2AGrpcService`): the cards list it. */
  readonly grpcUrl?: string;
  /** Told of unexpected errors; the caller only gets an internal error without details. Default: console.error. */
  readonly onError?: (error: unknown) => void;
  /**
   * The operator's key (Ed25519 or P-256): every card served (HTTP, gRPC) carries a JWS signature
   * by it, which callers check against the public key (`a2aAgent({ trust })`, the SDK's
   * `verifyAgentCardSignature`). From the environment: `cardSigningFromEnv()`. Default: unsigned cards.
   */
  readonly cardSigning?: A2ACardSigning;
}

export type CairnA2AHandler = (request: Request) => Promise<Response>;

const KEEP_ALIVE_MS = 15_000;

export function createCairnA2AHandler(options: CairnA2AHandlerOptions): CairnA2AHandler {
  if (options.agents.length === 0) throw new Error('createCairnA2AHandler serves one or more agents.');
  // A bad key stops the server here, not at its first card request.
  if (options.cardSigning) signerOf(options.cardSigning);
  const base = (options.basePath ?? '').replace(/\/$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const onError = errorReporter(options);
  const settings = handlerSettings(options);
  const served = new Map(options.agents.map((agent) => [agent.name, agent]));
  const endpoints = new Map<string, Endpoint>();
  const endpoint = (agent: Agent, origin: string) => {
    const url = `${(options.publicUrl ?? origin + base).replace(/\/$/, '')}/${encodeURIComponent(agent.name)}`;
    let found = endpoints.get(url);
    if (!found) {
      const handler = guarded(new CairnA2ARequestHandler(agent.name, cardOf(options, agent, url), settings), onError);
      found = {
        handler,
        transport: new JsonRpcTransportHandler(handler),
        legacy: new LegacyJsonRpcTransportHandler(handler),
      };
      // One entry per public URL the cards name (a handful); not a cache of anything about runs.
      if (endpoints.size < 64) endpoints.set(url, found);
    }
    return found;
  };

  return async (request) => {
    const url = new URL(request.url);
    try {
      if (!url.pathname.startsWith(base)) throw new HttpError(404, 'not_found', 'No such endpoint.');
      const parts = url.pathname.slice(base.length).split('/').filter(Boolean).map(decodeURIComponent);
      const named = parts[0] !== undefined && parts[0] !== '.well-known' ? parts.shift() : undefined;
      const agent = named === undefined ? options.agents[0]! : served.get(named);
      if (!agent)
        throw new HttpError(
          404,
          'unknown_agent',
          `No agent "${named}" here; this server serves: ${[...served.keys()].join(', ')}.`,
        );
      const rest = parts.join('/');
      if (request.method === 'GET' && (rest === '.well-known/agent-card.json' || rest === '.well-known/agent.json')) {
        const card = await endpoint(agent, url.origin).handler.getAgentCard();
        // A2A 1.0 clients say so (A2A-Version); anything else gets the card with its A2A 0.3 fields too.
        const v1 = request.headers.get(A2A_VERSION_HEADER) === '1.0';
        return Response.json(v1 ? AgentCard.toJSON(card) : withLegacyFields(card), {
          headers: { 'cache-control': 'public, max-age=60', vary: A2A_VERSION_HEADER },
        });
      }
      // The HTTP+JSON binding, at the same URL: `message:send`, `tasks/{id}`… (rest-binding.ts).
      if (isRestPath(rest))
        return await restCall(
          request,
          rest,
          url,
          endpoint(agent, url.origin).handler,
          callContext(request).context,
          maxBodyBytes,
        );
      if (request.method !== 'POST' || rest !== '')
        throw new HttpError(404, 'not_found', `No endpoint ${request.method} ${url.pathname}.`);
      return await jsonRpc(request, endpoint(agent, url.origin), maxBodyBytes);
    } catch (error) {
      if (HttpError.isInstance(error)) return rpcError(null, -32600, error.message, error.status, error.headers);
      onError(error);
      return rpcError(null, -32603, 'The request failed.', 500);
    }
  };
}

/** What every request handler of a server shares, from its options. */
export function handlerSettings(options: CairnA2AHandlerOptions): A2AHandlerSettings {
  return {
    client: options.client,
    authorize: options.authorize,
    taskPrefix: options.taskPrefix ?? 'cairn-a2a-',
    maxWaitMs: options.maxWaitMs ?? 60_000,
    maxRunsPerTenant: options.maxRunsPerTenant,
    startOptions: options.startOptions as
      | ((run: { agent: string; workflowId: string; contextId: string; request: Request }) => Partial<StartRunOptions>)
      | undefined,
  };
}

export function errorReporter(options: Pick<CairnA2AHandlerOptions, 'onError'>): (error: unknown) => void {
  return options.onError ?? ((error) => console.error('cairn a2a:', error));
}

/**
 * An agent's card at `url` (its JSON-RPC and HTTP+JSON endpoint), with the gRPC server's address
 * when there is one, signed when the options give a key.
 */
export function cardOf(options: CairnA2AHandlerOptions, agent: Agent, url: string): AgentCard {
  const about = options.describe?.[agent.name] ?? {};
  const card = agentCard(agent, url, options.grpcUrl ? { grpcUrl: options.grpcUrl, ...about } : about);
  return options.cardSigning ? signedCard(card, signerOf(options.cardSigning)) : card;
}

// One signer per key configuration: the PEM is parsed once, not per card.
const signers = new WeakMap<A2ACardSigning, CardSigner>();
function signerOf(signing: A2ACardSigning): CardSigner {
  let signer = signers.get(signing);
  if (!signer) {
    signer = createCardSigner(signing);
    signers.set(signing, signer);
  }
  return signer;
}

interface Endpoint {
  readonly handler: A2ARequestHandler;
  readonly transport: JsonRpcTransportHandler;
  /** A2A 0.3 clients (`message/send`, `tasks/get`…), translated to the same handler by the SDK. */
  readonly legacy: LegacyJsonRpcTransportHandler;
}

/** The card with the fields an A2A 0.3 client reads beside the 1.0 ones (one JSON-RPC endpoint, the same URL). */
function withLegacyFields(card: AgentCard): Record<string, unknown> {
  const json = AgentCard.toJSON(card) as Record<string, unknown>;
  const endpoint = card.supportedInterfaces[0]!.url;
  return {
    ...json,
    protocolVersion: '0.3.0',
    url: endpoint,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url: endpoint, transport: 'JSONRPC' }],
    // The 1.0 fields stay beside the 0.3 ones: a signed card's signature covers them (card-signing.ts).
    capabilities: {
      ...(json.capabilities as Record<string, unknown> | undefined),
      streaming: card.capabilities?.streaming ?? false,
      pushNotifications: true,
      stateTransitionHistory: false,
    },
    supportsAuthenticatedExtendedCard: false,
    security: [],
    skills: card.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      examples: skill.examples,
      inputModes: skill.inputModes,
      outputModes: skill.outputModes,
    })),
  };
}

async function jsonRpc(
  request: Request,
  { handler, transport, legacy }: Endpoint,
  maxBodyBytes: number,
): Promise<Response> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/(a2a\+)?json\b/i.test(type))
    return rpcError(null, -32600, 'Send JSON-RPC as application/json.', 415);
  const text = await readBoundedText(request, maxBodyBytes);
  if (text === undefined) return rpcError(null, -32600, `The request is larger than ${maxBodyBytes} bytes.`, 413);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return rpcError(null, -32700, 'The request is not valid JSON.', 400);
  }
  const id = typeof body === 'object' && body !== null && 'id' in body ? (body as { id: unknown }).id : null;
  const rpcId = typeof id === 'string' || typeof id === 'number' ? id : null;
  const version = request.headers.get(A2A_VERSION_HEADER) ?? undefined;
  const { context, abort } = callContext(request);
  const method = typeof body === 'object' && body !== null ? (body as { method?: unknown }).method : undefined;
  const old = isLegacyJsonRpcMethod(method);
  if (version && !old) {
    try {
      validateVersion(version, await handler.getAgentCard(), 'JSONRPC');
    } catch (error) {
      return Response.json({ jsonrpc: '2.0', id: rpcId, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    }
  }
  const result = old
    ? await legacy.handle(body as Record<string, unknown>, context)
    : await transport.handle(body as Record<string, unknown>, context);
  const mapError = old
    ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
    : JsonRpcTransportHandler.mapToJSONRPCError;
  if (!(Symbol.asyncIterator in (result as object))) {
    const refused = authRefusal(context, rpcId);
    return (
      refused ??
      Response.json(result, { status: (result as { error?: { code?: number } }).error?.code === -32603 ? 500 : 200 })
    );
  }
  const events = result as AsyncGenerator<unknown, void, undefined>;
  let first: IteratorResult<unknown, void>;
  try {
    first = await events.next();
  } catch (error) {
    return authRefusal(context, rpcId) ?? Response.json({ jsonrpc: '2.0', id: rpcId, error: mapError(error) });
  }
  const refused = authRefusal(context, rpcId);
  if (refused) return refused;
  // The first event that is an error (an unknown task…) is the protocol's error, not a stream.
  if (first.done || (first.value as { error?: unknown }).error) {
    await events.return(undefined);
    return Response.json(first.value ?? { jsonrpc: '2.0', id: rpcId, result: null });
  }
  const encoder = new TextEncoder();
  // A comment now and then while the run works, so that proxies do not close a quiet stream.
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`data: ${JSON.stringify(first.value)}\n\n`));
      keepAlive = setInterval(() => controller.enqueue(encoder.encode(': keep-alive\n\n')), KEEP_ALIVE_MS);
    },
    async pull(controller) {
      try {
        const next = await events.next();
        if (next.done) {
          clearInterval(keepAlive);
          controller.close();
        } else controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
      } catch (error) {
        clearInterval(keepAlive);
        controller.enqueue(
          encoder.encode(
            `event: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: rpcId, error: mapError(error) })}\n\n`,
          ),
        );
        controller.close();
      }
    },
    async cancel() {
      clearInterval(keepAlive);
      abort.abort();
      await events.return(undefined).catch(() => undefined);
    },
  });
  return new Response(stream, { headers: SSE_HEADERS });
}

/** The request's ServerCallContext (its headers, the request for `authorize`, a signal that aborts with it). */
function callContext(request: Request): { readonly context: ServerCallContext; readonly abort: AbortController } {
  const abort = new AbortController();
  request.signal?.addEventListener('abort', () => abort.abort(), { once: true });
  const version = request.headers.get(A2A_VERSION_HEADER) ?? undefined;
  const context = new ServerCallContext({
    state: new Map<string, unknown>([
      ['headers', Object.fromEntries(request.headers)],
      [REQUEST_KEY, request],
      [SIGNAL_KEY, abort.signal],
    ]),
    ...(version && { requestedVersion: version }),
  });
  return { context, abort };
}

/** The HTTP answer to a request `authorize` refused (401 with its challenge, 403), or a tenant's limit (429), if so. */
function authRefusal(context: ServerCallContext, id: string | number | null): Response | undefined {
  const error = context.state.get(AUTH_ERROR_KEY);
  if (error === undefined) return undefined;
  if (HttpError.isInstance(error)) return rpcError(id, -32600, error.message, error.status, error.headers);
  return rpcError(id, -32600, 'Not authorized.', 403);
}

function rpcError(
  id: string | number | null,
  code: number,
  message: string,
  status: number,
  headers: Record<string, string> = {},
): Response {
  return Response.json(
    { jsonrpc: '2.0', id, error: { code, message } },
    { status, headers: { ...JSON_HEADERS, ...headers } },
  );
}

/** The body as text, or undefined when it is larger than `max` bytes (refused as it streams in). */
/** The handler with unexpected errors reported to `onError` and answered without their details. */
export function guarded(handler: A2ARequestHandler, onError: (error: unknown) => void): A2ARequestHandler {
  const fix = (error: unknown) => {
    if (error instanceof A2AError) return error;
    onError(error);
    return new Error('The request failed.');
  };
  return new Proxy(handler, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const out = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (out && typeof out === 'object' && Symbol.asyncIterator in out)
          return (async function* () {
            try {
              yield* out as AsyncGenerator<unknown>;
            } catch (error) {
              throw fix(error);
            }
          })();
        if (out instanceof Promise) return out.catch((error: unknown) => Promise.reject(fix(error)));
        return out;
      };
    },
  });
}
