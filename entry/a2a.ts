/**
 * `cairn-agents/a2a`: other agents reach runs over A2A 1.0. `createCairnA2AHandler({ client,
 * agents, authorize })` is one web-standard `Request → Response` handler serving each agent's
 * card and its JSON-RPC and HTTP+JSON endpoints (send, streaming send, get, list, cancel,
 * subscribe); `cairnA2AGrpcService` serves the same over gRPC. A task is a run,
 * its questions and reviews are the input-required state. See docs/a2a.md.
 *
 * Needs `@a2a-js/sdk` 1.3 (an optional peer dependency: `npm install @a2a-js/sdk`), loaded here
 * and nowhere else. Who imports it: your server (Node). Not workflow code.
 */
import { FEATURE_PEERS, requirePeers } from '../shared/optional-peers.js';

const a2a = await requirePeers('cairn-agents/a2a', FEATURE_PEERS.a2a, () => import('../servers/a2a/index.js'));

/** One `Request → Response` handler serving the agents' cards and A2A JSON-RPC endpoints (docs/a2a.md). */
export const createCairnA2AHandler: typeof a2a.createCairnA2AHandler = a2a.createCairnA2AHandler;
/** The A2A gRPC binding for a `@grpc/grpc-js` Server: `server.addService(s.definition, s.implementation)` (docs/a2a.md). */
export const cairnA2AGrpcService: typeof a2a.cairnA2AGrpcService = a2a.cairnA2AGrpcService;
/** `@a2a-js/sdk`'s `A2ARequestHandler` for one agent, to mount with the SDK's own transports (Express, gRPC). */
export const CairnA2ARequestHandler: typeof a2a.CairnA2ARequestHandler = a2a.CairnA2ARequestHandler;
export type CairnA2ARequestHandler = InstanceType<typeof a2a.CairnA2ARequestHandler>;
/** An agent's A2A card, as the handler serves it. */
export const agentCard: typeof a2a.agentCard = a2a.agentCard;
/**
 * The operator's card-signing key from the environment (`CAIRN_A2A_SIGNING_KEY`: PEM text or a PEM
 * file's path; `CAIRN_A2A_SIGNING_KEY_ID`, `CAIRN_A2A_SIGNING_JKU` optional), for
 * `createCairnA2AHandler({ cardSigning })`; undefined when unset (docs/a2a.md, "Signed agent cards").
 */
export const cardSigningFromEnv: typeof a2a.cardSigningFromEnv = a2a.cardSigningFromEnv;
/** The media type of the data part a task's input-required status carries for programs (docs/a2a.md). */
export const INPUT_REQUIRED_MEDIA_TYPE: typeof a2a.INPUT_REQUIRED_MEDIA_TYPE = a2a.INPUT_REQUIRED_MEDIA_TYPE;
export type {
  CairnA2AHandler,
  CairnA2AHandlerOptions,
  CairnA2AGrpcOptions,
  CairnA2AGrpcService,
  A2AHandlerSettings,
  A2AAgentDescription,
  A2ACardSigning,
} from '../servers/a2a/index.js';
export type { PendingInput, PendingQuestion, HeldCall, RunReply, RunInputCode } from '../servers/a2a/run-input.js';
export type { RunStatus, RunStatusName } from '../servers/a2a/run-status.js';
export { toNodeListener } from '../servers/http/node-listener.js';
export { bearerToken, type Authorize } from '../servers/http/authorize.js';
