/**
 * The A2A gRPC binding: `cairnA2AGrpcService(options)` is `@a2a-js/sdk`'s A2AService definition
 * with an implementation over the same request handlers the web handler uses, for a
 * `@grpc/grpc-js` Server (`server.addService(service.definition, service.implementation)`). One
 * service serves every agent: a request's `tenant` names the agent — the cards' GRPC interfaces
 * carry it, so SDK clients send it — and an empty tenant means the first agent. The call's
 * metadata are the headers `authorize` reads (`authorization: Bearer …`); a refusal is the gRPC
 * status that says so (UNAUTHENTICATED, PERMISSION_DENIED, RESOURCE_EXHAUSTED for a tenant at its
 * limit), not an A2A error. Stateless, like the other bindings. Node-only (client side).
 *
 * The SDK's gRPC binding needs its own optional peers (`@grpc/grpc-js`, `@bufbuild/protobuf`), so
 * it is loaded on the first call, not with `cairn-agents/a2a`: the web bindings work without them.
 */
import { createRequire } from 'node:module';
import type { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { ServerCallContext, type A2ARequestHandler, type User } from '@a2a-js/sdk/server';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { FEATURE_PEERS, requirePeersSync } from '../../shared/optional-peers.js';
import { HttpError } from '../http/http-error.js';
import { AUTH_ERROR_KEY, CairnA2ARequestHandler, REQUEST_KEY, SIGNAL_KEY } from './a2a-request-handler.js';
import { cardOf, errorReporter, guarded, handlerSettings, type CairnA2AHandlerOptions } from './cairn-a2a-handler.js';

export interface CairnA2AGrpcOptions extends Omit<CairnA2AHandlerOptions, 'basePath' | 'maxBodyBytes' | 'grpcUrl'> {
  /** The address clients reach this service at (`host:port`), for the cards it gives (GetExtendedAgentCard, version checks). */
  readonly grpcUrl: string;
}

export interface CairnA2AGrpcService {
  /** The service definition (`lf.a2a.v1.A2AService`). */
  readonly definition: typeof A2AService;
  /** Its methods, for `server.addService(definition, implementation)`. */
  readonly implementation: ReturnType<typeof grpcService>;
}

/** gRPC status codes used here (grpc-js's `status` enum, without loading grpc-js for three numbers). */
const GRPC = { RESOURCE_EXHAUSTED: 8, PERMISSION_DENIED: 7, UNAUTHENTICATED: 16 } as const;

/** A caller as the SDK passes it to the context builder, carrying its call (metadata, cancel). */
interface CallUser extends User {
  readonly call: GrpcCall;
}

interface GrpcCall {
  readonly metadata: { getMap(): Record<string, unknown> };
  on(event: 'cancelled', listener: () => void): unknown;
  emit(event: string, ...args: unknown[]): boolean;
}

type GrpcBinding = typeof import('@a2a-js/sdk/server/grpc');
let binding: GrpcBinding | undefined;

/** The SDK's gRPC binding, or a one-line `MissingPeerError` naming what to install. Synchronous, as the function is. */
function grpcBinding(): GrpcBinding {
  binding ??= requirePeersSync(
    'cairnA2AGrpcService (cairn-agents/a2a over gRPC)',
    FEATURE_PEERS.a2aGrpc,
    () => createRequire(import.meta.url)('@a2a-js/sdk/server/grpc') as GrpcBinding,
  );
  return binding;
}

export function cairnA2AGrpcService(options: CairnA2AGrpcOptions): CairnA2AGrpcService {
  if (options.agents.length === 0) throw new Error('cairnA2AGrpcService serves one or more agents.');
  const { A2AService, grpcService } = grpcBinding();
  const settings = handlerSettings(options);
  const onError = errorReporter(options);
  // The cards name the web endpoint when it is known (publicUrl); the gRPC address always.
  const httpUrl = (options.publicUrl ?? `grpc://${options.grpcUrl}`).replace(/\/$/, '');
  const handlers = new Map(
    options.agents.map((agent) => [
      agent.name,
      guarded(
        new CairnA2ARequestHandler(
          agent.name,
          cardOf(options, agent, `${httpUrl}/${encodeURIComponent(agent.name)}`),
          settings,
        ),
        onError,
      ),
    ]),
  );
  const first = handlers.get(options.agents[0]!.name)!;
  const contexts = new WeakMap<GrpcCall, ServerCallContext>();

  // Each method goes to the agent the request's tenant names (the context carries it).
  const router = new Proxy(first, {
    get(target, property) {
      if (property === 'getAgentCard' || property === 'getAuthenticatedExtendedAgentCard')
        return Reflect.get(target, property).bind(target);
      return (...args: unknown[]) => {
        const context = args.at(-1) as ServerCallContext;
        const handler = context.tenant ? handlers.get(context.tenant) : first;
        if (!handler)
          throw new RequestMalformedError(
            `No agent "${context.tenant}" here; this server serves: ${[...handlers.keys()].join(', ')}.`,
          );
        return (Reflect.get(handler, property) as (...a: unknown[]) => unknown).apply(handler, args);
      };
    },
  }) as A2ARequestHandler;

  const implementation = grpcService({
    requestHandler: router,
    userBuilder: async (call) => {
      const user: CallUser = { isAuthenticated: false, userName: '', call: call as unknown as GrpcCall };
      return user;
    },
    contextBuilder: ({ user, headers, requestedVersion, tenant }) => {
      const call = (user as CallUser).call;
      const abort = new AbortController();
      call.on('cancelled', () => abort.abort());
      const context = new ServerCallContext({
        ...(requestedVersion && { requestedVersion }),
        ...(tenant && { tenant }),
        state: new Map<string, unknown>([
          ['headers', headers],
          // `authorize` reads a web Request: the call's metadata are its headers.
          [REQUEST_KEY, new Request('http://grpc.invalid/', { headers: headerPairs(headers) })],
          [SIGNAL_KEY, abort.signal],
        ]),
      });
      contexts.set(call, context);
      return context;
    },
  });

  // A refusal by `authorize` (or a tenant's limit) becomes its gRPC status, on unary and streaming calls alike.
  const refusal = (call: GrpcCall, error: unknown): unknown => {
    const refused = contexts.get(call)?.state.get(AUTH_ERROR_KEY);
    if (refused === undefined) return error;
    const status = HttpError.isInstance(refused) ? refused.status : 403;
    const code =
      status === 401 ? GRPC.UNAUTHENTICATED : status === 429 ? GRPC.RESOURCE_EXHAUSTED : GRPC.PERMISSION_DENIED;
    return { code, details: HttpError.isInstance(refused) ? refused.message : 'Not authorized.' };
  };
  const wrapped = Object.fromEntries(
    Object.entries(implementation).map(([name, method]) => [
      name,
      (call: GrpcCall, callback?: (error: unknown, value: unknown) => void) => {
        const emit = call.emit.bind(call);
        call.emit = (event, ...args) =>
          event === 'error' ? emit(event, refusal(call, args[0])) : emit(event, ...args);
        const answer = callback && ((error: unknown, value: unknown) => callback(error && refusal(call, error), value));
        return (method as (call: GrpcCall, callback?: unknown) => unknown)(call, answer);
      },
    ]),
  ) as unknown as ReturnType<typeof grpcService>;
  return { definition: A2AService, implementation: wrapped };
}

function headerPairs(headers: Record<string, string | string[] | undefined>): [string, string][] {
  // Binary metadata (`-bin`) and gRPC's own pseudo-headers are not HTTP headers.
  return Object.entries(headers).flatMap(([key, value]) =>
    key.endsWith('-bin') || key.startsWith(':') || value === undefined
      ? []
      : [[key, Array.isArray(value) ? value.join(', ') : value] as [string, string]],
  );
}
