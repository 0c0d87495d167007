/**
 * `cairn-agents/http`: people reach runs over HTTP. `createCairnHttpHandler({ client, agents,
 * authorize })` is one web-standard `Request → Response` handler speaking JSON + Server-Sent
 * Events, AG-UI (`POST /agui`) and the AI SDK's UI message stream (`POST /chat`), and serving the
 * inbox page; `toNodeListener` mounts it in Node's `http`. See docs/http.md.
 *
 * Who imports it: your server (Node). Not workflow code.
 */
export { createCairnHttpHandler, type CairnHttpHandler, type CairnHttpHandlerOptions } from '../client/http/cairn-http-handler.js';
export { toNodeListener } from '../client/http/node-listener.js';
export { bearerToken, type Authorize, type Caller, type HttpAction, type HttpRunRef } from '../client/http/authorize.js';
export { HttpError, type HttpErrorCode } from '../client/http/http-error.js';
export { toAgUiEvents, toAgUiInterrupts, agUiWindowContext, type AgUiWindowContext } from '../client/http/agui-events.js';
export { toUiMessageChunks, uiWindowContext, type UiWindowContext } from '../client/http/ui-message-chunks.js';
export { parseInterruptId, pendingInterrupts, questionInterruptId, reviewInterruptId, type PendingInterrupt, type InterruptTarget } from '../client/http/interrupts.js';
export { inboxQuery, type InboxItem, type InboxPage } from '../client/http/inbox.js';
