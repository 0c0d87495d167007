/** `cairn serve`: the HTTP handler (runs API, AG-UI, AI SDK stream, inbox page) on a port, until Ctrl-C. */
import { DEFAULT_TASK_QUEUE } from '../../runtime/temporal-target.js';
import { parseCommandLine, parsePort, type Command } from '../command.js';
import { CliError } from '../errors.js';
import { FEATURE_PEERS, requirePeers } from '../../shared/optional-peers.js';
import { DEFAULT_HTTP_PORT, HTTP_TOKEN_ENV, isLoopback } from '../http-settings.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Serve runs over HTTP: JSON + SSE, AG-UI, the AI SDK UI stream and the inbox page (Ctrl-C to stop)',
  help: `Usage: cairn serve [--port ${DEFAULT_HTTP_PORT}] [--host 127.0.0.1] [--cors-origin <url>] [--task-queue <queue>] [--config <file>]

Serves the runs on the server the environment names over HTTP (docs/http.md), until
SIGINT/SIGTERM: POST /runs, GET /runs/:id, GET /runs/:id/events (SSE), POST /runs/:id/answer,
POST /runs/:id/reviews/:toolCallId, POST /runs/:id/cancel, GET /inbox, POST /agui (AG-UI),
POST /chat (AI SDK UI message stream), and the inbox page at /. Stateless: run as many as you
like behind a load balancer. The agents of cairn.config.ts (when there is one) are the ones
requests may start, and their tools' schemas check edited arguments.

Options:
  --port <port>         Port to listen on (default ${DEFAULT_HTTP_PORT})
  --host <host>         Interface to listen on (default 127.0.0.1)
  --cors-origin <url>   A browser origin allowed to call it (default: none, CORS off)
  --task-queue <queue>  The task queue runs are started on (default: the config's, else ${DEFAULT_TASK_QUEUE})
  --json                Print one JSON line once listening: { url, port, auth, agents }
  -h, --help            Show this help

Environment:
  ${HTTP_TOKEN_ENV}   The bearer token every request must carry (Authorization: Bearer <token>).
                     Required unless --host is a loopback address.
  TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, … as for every command; TEMPORAL_UI_URL for inbox links.`,

  async run(argv, io) {
    const { values } = parseCommandLine('serve', argv, {
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'cors-origin': { type: 'string' },
        'task-queue': { type: 'string' },
        config: { type: 'string' },
      },
      required: [],
    });
    const port = values.port === '0' ? 0 : parsePort('port', values.port, DEFAULT_HTTP_PORT);
    const host = values.host ?? '127.0.0.1';
    const token = process.env[HTTP_TOKEN_ENV] || undefined;
    if (!token && !isLoopback(host))
      throw new CliError(
        `${HTTP_TOKEN_ENV} is not set: a server reachable from other machines needs a bearer token (or put it behind your own auth with createCairnHttpHandler).`,
      );
    const { connectFromEnvironment, loadCliProject } = await import('../worker-process.js');
    const hasConfig = async () => (await import('../../runtime/project-config.js')).findConfig() !== undefined;
    const { startCairnHttpServer } = await requirePeers(
      'cairn serve',
      FEATURE_PEERS.http,
      () => import('../http-server.js'),
    );
    const { dataConverterFromEnvironment } = await import('../../runtime/payload-codec.js');
    const { Client } = await import('@temporalio/client');
    // The agents only (no deps): which ones requests may start, and their tools' schemas. None: any agent.
    const project =
      values.config || (await hasConfig()) ? await loadCliProject(values.config, { deps: false }) : undefined;
    const taskQueue = values['task-queue'] ?? project?.taskQueue ?? DEFAULT_TASK_QUEUE;
    const connected = await connectFromEnvironment().catch((error: Error) =>
      Promise.reject(
        new CliError(
          /^No Temporal server at /.test(error.message)
            ? error.message
            : `Cannot connect to the Temporal server: ${error.message}`,
        ),
      ),
    );
    const dataConverter = dataConverterFromEnvironment(process.env);
    const client = dataConverter
      ? new Client({ connection: connected.client.connection, namespace: connected.namespace, dataConverter })
      : connected.client;
    const agents = project?.agents ?? [];
    let server;
    try {
      server = await startCairnHttpServer({
        client,
        taskQueue,
        agents,
        port,
        host,
        ...(token && { token }),
        ...(values['cors-origin'] && { corsOrigin: values['cors-origin'] }),
        ...(connected.uiUrl && { temporalUiUrl: connected.uiUrl }),
        log: (line) => io.error(line),
      });
    } catch (error) {
      await connected.close();
      throw new CliError(`Cannot listen on ${host}:${port}: ${(error as Error).message}`);
    }
    io.line(
      `Cairn HTTP ${server.url} (inbox: ${server.url}/), runs on task queue "${taskQueue}"${token ? `, requiring the ${HTTP_TOKEN_ENV} bearer token` : ', no auth (loopback only)'}. Ctrl-C to stop.`,
    );
    io.document({ url: server.url, port: server.port, auth: token !== undefined, agents: agents.map((a) => a.name) });
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
    await connected.close();
    return 0;
  },
};
