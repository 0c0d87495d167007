/** `cairn worker`: a worker for your agents on the Temporal server the environment names (what docker-compose runs). */
import { DEFAULT_TASK_QUEUE } from '../../runtime/temporal-target.js';
import { parseCommandLine, type Command } from '../command.js';
import { CliError } from '../errors.js';
import { TUNING_HELP, TUNING_OPTIONS, tuningFlags } from '../worker-flags.js';
import { VERSIONING_HELP, VERSIONING_OPTIONS, versioningFlags, workerVersioning } from '../versioning-flags.js';

export const workerCommand: Command = {
  name: 'worker',
  summary: 'Run a worker for your agents on the Temporal server from the environment',
  help: `Usage: cairn worker [--task-queue <queue>] [--config <file>] [--deployment-name <name>] [--build-id <id>]

Runs a Cairn worker (the agentRun workflow over the agents your cairn.config.ts names, their
tools with the config's deps, the model activity) on the server the environment names, until
SIGINT or SIGTERM. Connection settings are the Temporal CLI's: TEMPORAL_ADDRESS (default
localhost:7233), TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*, TEMPORAL_PROFILE /
TEMPORAL_CONFIG_FILE. Model keys: OPENAI_API_KEY, ANTHROPIC_API_KEY, OLLAMA_BASE_URL,
CAIRN_MODEL_BASE_URL, CAIRN_MODEL_API_KEY. Worker logs go to stderr (CAIRN_LOG_LEVEL, default WARN).

With Worker Deployment Versioning (a --deployment-name, --build-id or --versioning flag, its
variable, or the config's versioning), the worker serves one build of a deployment: pinned runs stay
on the build they started on, auto-upgrade runs move to the current build. A new build gets runs
once promoted: cairn deploy set-current (docs/upgrades.md).

Options:
  --task-queue <queue>  Task queue to poll (default: the config's, else ${DEFAULT_TASK_QUEUE})
${TUNING_HELP}
${VERSIONING_HELP}
  --json                Print one JSON line once polling: { address, namespace, taskQueue, uiUrl,
                        embeddedServer, agents, config, deployment? }
  -h, --help            Show this help`,

  async run(argv, io) {
    const { values } = parseCommandLine('worker', argv, {
      options: { 'task-queue': { type: 'string' }, ...TUNING_OPTIONS, ...VERSIONING_OPTIONS },
      required: [],
    });
    const tuning = tuningFlags(values);
    const versioning = versioningFlags(values);
    // Loaded once the command line checks out: the worker, the agents and the model providers.
    const { connectFromEnvironment, installRuntime, loadCliProject, runProjectWorker } = await import(
      '../worker-process.js'
    );
    const project = await loadCliProject(values.config);
    const versioned = workerVersioning(versioning, project);
    installRuntime();
    const connected = await connectFromEnvironment().catch((error: Error) => {
      // No server: the connection's own line names the address and what to do.
      throw new CliError(
        /^No Temporal server at /.test(error.message)
          ? error.message
          : `Cannot connect to Temporal (${error.message.split('\n')[0]}); check TEMPORAL_ADDRESS.`,
      );
    });
    try {
      await runProjectWorker(connected, project, {
        taskQueue: values['task-queue'] ?? project.taskQueue ?? DEFAULT_TASK_QUEUE,
        embeddedServer: false,
        io,
        worker: tuning,
        ...(versioned && { versioning: versioned }),
      });
    } finally {
      await connected.close().catch(() => {});
    }
    return 0;
  },
};
