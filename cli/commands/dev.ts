/** `cairn dev`: the embedded dev server (runs kept in .temporal/) and a worker, until Ctrl-C. */
import type { Connected } from '../../runtime/connection.js';
import { DEFAULT_TASK_QUEUE } from '../../runtime/temporal-target.js';
import { parseCommandLine, parsePort, type Command } from '../command.js';
import { CliError } from '../errors.js';

export const devCommand: Command = {
  name: 'dev',
  summary: 'Run the embedded Temporal dev server and a worker (Ctrl-C to stop)',
  help: `Usage: cairn dev [--port 7233] [--ui-port 8233] [--db-filename <file>] [--task-queue <queue>]

Starts Temporal's dev server (the real \`temporal server start-dev\`, runs kept in .temporal/
across restarts, Cairn's search attributes registered) and a Cairn worker, until SIGINT/SIGTERM.
With TEMPORAL_ADDRESS (or TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE) set, no server is started: only
the worker runs, on that server.

Options:
  --port <port>         Dev server gRPC port (default 7233)
  --ui-port <port>      Temporal UI port (default 8233)
  --db-filename <file>  Where the server keeps runs (default .temporal/cairn.db)
  --task-queue <queue>  Task queue to poll (default: ${DEFAULT_TASK_QUEUE})
  --json                Print one JSON line once ready: { address, namespace, taskQueue, uiUrl,
                        embeddedServer }; stdout has nothing else
  -h, --help            Show this help

Then, in another terminal:
  cairn run orders "Where is order A-1001?"`,

  async run(argv, io) {
    const { values } = parseCommandLine('dev', argv, {
      options: { port: { type: 'string' }, 'ui-port': { type: 'string' }, 'db-filename': { type: 'string' }, 'task-queue': { type: 'string' } },
      required: [],
    });
    const port = parsePort('port', values.port, 7233);
    const uiPort = parsePort('ui-port', values['ui-port'], 8233);
    const taskQueue = values['task-queue'] ?? DEFAULT_TASK_QUEUE;
    // Loaded once the command line checks out: the server, the worker, the agents and the model providers.
    const { connectFromEnvironment, hasExternalServer, installRuntime, runCairnWorker, startEmbeddedServer } = await import('../worker-process.js');
    installRuntime();

    const external = hasExternalServer();
    let connected: Connected;
    try {
      connected = external ? await connectFromEnvironment() : await startEmbeddedServer({ persistent: true, dbFilename: values['db-filename'], port, uiPort, log: (line) => io.error(line) });
    } catch (error) {
      const what = external ? 'Cannot connect to the Temporal server from the environment' : `Cannot start the dev server on port ${port}`;
      throw new CliError(`${what}: ${(error as Error).message}`);
    }
    try {
      await runCairnWorker(connected, { taskQueue, embeddedServer: !external, io });
    } finally {
      // Ctrl-C reaches the server process too; it may already be gone.
      await connected.close().catch(() => {});
    }
    return 0;
  },
};
