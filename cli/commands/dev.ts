/** `cairn dev`: the embedded dev server (runs kept in .temporal/) and a worker for your agents, until Ctrl-C. */
import type { Connected } from '../../runtime/connection.js';
import { DEFAULT_TASK_QUEUE } from '../../runtime/temporal-target.js';
import { parseCommandLine, parsePort, type Command } from '../command.js';
import { CliError } from '../errors.js';
import { TUNING_HELP, TUNING_OPTIONS, tuningFlags } from '../worker-flags.js';

export const devCommand: Command = {
  name: 'dev',
  summary: 'Run the embedded Temporal dev server and a worker for your agents (Ctrl-C to stop)',
  help: `Usage: cairn dev [--port 7233] [--ui-port <port + 1000>] [--db-filename <file>] [--task-queue <queue>] [--config <file>]

Starts Temporal's dev server (the real \`temporal server start-dev\`, runs kept in .temporal/
across restarts, Cairn's search attributes registered) and a worker for the agents your
cairn.config.ts names (found from this folder upward), until SIGINT/SIGTERM. With
TEMPORAL_ADDRESS (or TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE) set, no server is started: only the
worker runs, on that server.

Options:
  --port <port>         Dev server gRPC port (default 7233)
  --ui-port <port>      Temporal UI port (default: the gRPC port + 1000)
  --db-filename <file>  Where the server keeps runs (default .temporal/cairn.db)
  --task-queue <queue>  Task queue to poll (default: the config's, else ${DEFAULT_TASK_QUEUE})
${TUNING_HELP}
  --json                Print one JSON line once ready: { address, namespace, taskQueue, uiUrl,
                        embeddedServer, agents, config }; stdout has nothing else
  -h, --help            Show this help

Then, in another terminal (the line it prints names the server when it is not the default):
  cairn run <agent> "<prompt>"`,

  async run(argv, io) {
    const { values } = parseCommandLine('dev', argv, {
      options: { port: { type: 'string' }, 'ui-port': { type: 'string' }, 'db-filename': { type: 'string' }, 'task-queue': { type: 'string' }, ...TUNING_OPTIONS },
      required: [],
    });
    const port = parsePort('port', values.port, 7233);
    const uiPort = parsePort('ui-port', values['ui-port'], port + 1000);
    const tuning = tuningFlags(values);
    // Loaded once the command line checks out: the server, the worker, the agents and the model providers.
    const { connectFromEnvironment, hasExternalServer, installRuntime, loadCliProject, runProjectWorker, startEmbeddedServer } = await import('../worker-process.js');
    const project = await loadCliProject(values.config);
    const taskQueue = values['task-queue'] ?? project.taskQueue ?? DEFAULT_TASK_QUEUE;
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
      await runProjectWorker(connected, project, { taskQueue, embeddedServer: !external, io, worker: tuning });
    } finally {
      // Ctrl-C reaches the server process too; it may already be gone.
      await connected.close().catch(() => {});
    }
    return 0;
  },
};
