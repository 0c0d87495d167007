/** What `cairn-agents/http` exports at run time, loaded by the entry point once its optional peers are known to be there. Node-only. */
export { createCairnHttpHandler } from './cairn-http-handler.js';
export { toNodeListener } from './node-listener.js';
export { bearerToken } from './authorize.js';
export { HttpError } from './http-error.js';
