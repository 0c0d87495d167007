/**
 * The HTTP handler (`cairn-agents/http`) on a port, as `cairn serve` and `cairn dev` run it: the
 * JSON + SSE runs API, AG-UI at /agui, the AI SDK stream at /chat, the inbox page at /. Bearer
 * token auth when a token is given (CAIRN_HTTP_TOKEN); CORS only for an origin named. Node-only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { CairnClient } from '../client/cairn-client.js';
import { bearerToken } from '../servers/http/authorize.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { toNodeListener } from '../servers/http/node-listener.js';
import type { Agent } from '../shared/agent/define-agent.js';

export interface CairnHttpServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startCairnHttpServer(options: {
  readonly client: Client;
  readonly taskQueue: string;
  readonly agents: readonly Agent[];
  readonly port: number;
  readonly host?: string;
  readonly token?: string;
  readonly corsOrigin?: string;
  readonly temporalUiUrl?: string;
  readonly log: (line: string) => void;
}): Promise<CairnHttpServer> {
  const handler = createCairnHttpHandler({
    client: new CairnClient({ client: options.client, taskQueue: options.taskQueue }),
    agents: options.agents,
    ...(options.token && { authorize: bearerToken(options.token) }),
    ...(options.corsOrigin && { corsOrigin: options.corsOrigin }),
    ...(options.temporalUiUrl && { temporalUiUrl: options.temporalUiUrl }),
    onError: (error) => options.log(`cairn http: ${(error as Error).stack ?? String(error)}`),
  });
  const server = createServer(toNodeListener(handler));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
