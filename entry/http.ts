/**
 * `cairn-agents/http`: people reach runs over HTTP. `createCairnHttpHandler({ client, agents,
 * authorize })` is one web-standard `Request → Response` handler speaking JSON + Server-Sent
 * Events, AG-UI (`POST /agui`) and the AI SDK's UI message stream (`POST /chat`), and serving the
 * inbox page; `toNodeListener` mounts it in Node's `http`. See docs/http.md.
 *
 * Needs the optional peers `@ag-ui/core`, `@ag-ui/encoder` and `ai` (`npm install @ag-ui/core
 * @ag-ui/encoder ai`), loaded here and nowhere else: without one, importing this entry point
 * fails with one line naming it. Who imports it: your server (Node). Not workflow code.
 */
import { FEATURE_PEERS, requirePeers } from '../shared/optional-peers.js';

const http = await requirePeers('cairn-agents/http', FEATURE_PEERS.http, () => import('../servers/http/index.js'));

/** One `Request → Response` handler for runs over JSON + SSE, AG-UI and the AI SDK's UI message stream (docs/http.md). */
export const createCairnHttpHandler: typeof http.createCairnHttpHandler = http.createCairnHttpHandler;
/** Mounts a `Request → Response` handler in Node's `http.createServer`. */
export const toNodeListener: typeof http.toNodeListener = http.toNodeListener;
/** An `authorize` that accepts one bearer token (docs/http.md, "Who may do what"). */
export const bearerToken: typeof http.bearerToken = http.bearerToken;
/** A refusal with an HTTP status and a stable code, for `authorize` to throw. */
export const HttpError: typeof http.HttpError = http.HttpError;
export type HttpError = InstanceType<typeof http.HttpError>;
export type { CairnHttpHandler, CairnHttpHandlerOptions } from '../servers/http/cairn-http-handler.js';
export type { Authorize, AuthorizeVerdict, Caller, HttpAction, HttpRunRef } from '../servers/http/authorize.js';
export type { HttpErrorCode } from '../servers/http/http-error.js';
export type { InboxItem, InboxPage } from '../servers/http/inbox.js';
