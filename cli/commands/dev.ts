/** `cairn dev`: the embedded dev server (runs kept in .temporal/) and a worker for your agents, until Ctrl-C. */
import type { Connected } from '../../runtime/connection.js';
import type { CairnHttpServer } from '../http-server.js';
import { DEFAULT_TASK_QUEUE } from '../../runtime/temporal-target.js';
import { parseCommandLine, parsePort, type Command } from '../command.js';
import { CliError } from '../errors.js';
import { FEATURE_PEERS, MissingPeerError, requirePeers } from '../../shared/optional-peers.js';
import { DEFAULT_HTTP_PORT, HTTP_TOKEN_ENV } from '../http-settings.js';
import { TUNING_HELP, TUNING_OPTIONS, tuningFlags } from '../worker-flags.js';

export const devCommand: Command = {
  name: 'dev',
  summary: 'Run the embedded Temporal dev server and a worker for your agents (Ctrl-C to stop)',
  help: `Usage: cairn dev [--port 7233] [--ui-port <port + 1000>] [--db-filename <file>] [--task-queue <queue>] [--config <file>]

Starts Temporal's dev server (the real \`temporal server start-dev\`, runs kept in .temporal/
across restarts, Cairn's search attributes registered) and a worker for the agents your
cairn.config.ts names (found from this folder upward), until SIGINT/SIGTERM. With
TEMPORAL_ADDRESS (or TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE) set, no server is started: only the
worker runs, on that server (for a dev server of your own on this machine, it prints the
--dynamic-config-value flags that give it the embedded server's speed; docs/operations.md).

Options:
  --port <port>         Dev server gRPC port (default 7233); a port in use is an error (exit 1),
                        never a reason to join the server that holds it
  --ui-port <port>      Temporal UI port (default: the gRPC port + 1000)
  --db-filename <file>  Where the server keeps runs (default .temporal/cairn.db). One database, one
                        server: a second \`cairn dev\` on it is refused (exit 1), naming the
                        running one (pid, address, UI)
  --task-queue <queue>  Task queue to poll (default: the config's, else ${DEFAULT_TASK_QUEUE})
  --http-port <port>    Serve runs over HTTP here, as \`cairn serve\` does (default ${DEFAULT_HTTP_PORT}; the
                        inbox page at /; CAIRN_HTTP_TOKEN, when set, is required of requests)
  --no-http             Do not serve HTTP
${TUNING_HELP}
  --json                Print one JSON line once ready: { address, namespace, taskQueue, uiUrl,
                        embeddedServer, agents, config }; stdout has nothing else
  -h, --help            Show this help

Then, in another terminal (the line it prints names the server when it is not the default):
  cairn run <agent> "<prompt>"`,

  async run(argv, io) {
    const { values } = parseCommandLine('dev', argv, {
      options: {
        port: { type: 'string' },
        'ui-port': { type: 'string' },
        'http-port': { type: 'string' },
        'no-http': { type: 'boolean' },
        'db-filename': { type: 'string' },
        'task-queue': { type: 'string' },
        ...TUNING_OPTIONS,
      },
      required: [],
    });
    const port = parsePort('port', values.port, 7233);
    const uiPort = parsePort('ui-port', values['ui-port'], port + 1000);
    const httpPort = values['http-port'] === '0' ? 0 : parsePort('http-port', values['http-port'], DEFAULT_HTTP_PORT);
    const tuning = tuningFlags(values);
    // Loaded once the command line checks out: the server, the worker, the agents and the model providers.
    const {
      connectFromEnvironment,
      fastDevServerHint,
      hasExternalServer,
      installRuntime,
      loadCliProject,
      runProjectWorker,
      startEmbeddedServer,
    } = await import('../worker-process.js');
    const project = await loadCliProject(values.config);
    // One build at a time: a versioned worker would get no run until someone promoted its build.
    if (project.versioning)
      io.error(
        "cairn dev runs your agents unversioned; the config's `versioning` applies to `cairn worker` (docs/upgrades.md).",
      );
    const taskQueue = values['task-queue'] ?? project.taskQueue ?? DEFAULT_TASK_QUEUE;
    installRuntime();

    const external = hasExternalServer();
    let connected: Connected;
    try {
      connected = external
        ? await connectFromEnvironment()
        : await startEmbeddedServer({
            persistent: true,
            dbFilename: values['db-filename'],
            port,
            uiPort,
            log: (line) => io.error(line),
          });
    } catch (error) {
      // A busy port or database: its own message names the port, or the server holding the database, and the flags.
      if ((error as Error).name === 'PortInUseError' || (error as Error).name === 'DatabaseInUseError')
        throw new CliError((error as Error).message);
      if (external && /^No Temporal server at /.test((error as Error).message))
        throw new CliError((error as Error).message);
      const what = external
        ? 'Cannot connect to the Temporal server from the environment'
        : `Cannot start the dev server on port ${port}`;
      throw new CliError(`${what}: ${(error as Error).message}`);
    }
    // A dev server of the user's own on this machine runs at Temporal's defaults: say how to get the embedded one's speed.
    if (external && /^(localhost|127\.0\.0\.1|\[::1\])(:|$)/.test(connected.address)) io.error(fastDevServerHint());
    let http: CairnHttpServer | undefined;
    try {
      if (!values['no-http']) {
        // Without the HTTP entry's optional peers, the worker runs without HTTP, and says what to install.
        const loaded = await requirePeers('cairn dev', FEATURE_PEERS.http, () => import('../http-server.js')).catch(
          (error: unknown) => {
            if (!MissingPeerError.isInstance(error)) throw error;
            io.error(`Not serving HTTP: ${error.message} (or --no-http)`);
            return undefined;
          },
        );
        const token = process.env[HTTP_TOKEN_ENV] || undefined;
        // A busy port must not stop development: the worker runs, without HTTP.
        const server = await loaded
          ?.startCairnHttpServer({
            client: connected.client,
            taskQueue,
            agents: project.agents,
            port: httpPort,
            ...(token && { token }),
            ...(connected.uiUrl && { temporalUiUrl: connected.uiUrl }),
            log: (line) => io.error(line),
          })
          .catch((error) => {
            io.error(
              `Not serving HTTP: port ${httpPort}: ${(error as Error).message} (--http-port <port>, or --no-http)`,
            );
            return undefined;
          });
        http = server;
        if (server)
          io.error(
            `Runs over HTTP at ${server.url} (inbox: ${server.url}/)${token ? `, requiring the ${HTTP_TOKEN_ENV} bearer token` : ''}`,
          );
      }
      await runProjectWorker(connected, project, { taskQueue, embeddedServer: !external, io, worker: tuning });
    } finally {
      await http?.close();
      // Ctrl-C reaches the server process too; it may already be gone.
      await connected.close().catch(() => {});
    }
    return 0;
  },
};
