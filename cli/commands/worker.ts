/** `cairn worker`: a Cairn worker on the server the environment names (what docker-compose runs). */
import { DEFAULT_TASK_QUEUE } from '../../runtime/temporal-target.js';
import { parseCommandLine, type Command } from '../command.js';
import { CliError } from '../errors.js';

export const workerCommand: Command = {
  name: 'worker',
  summary: 'Run a worker on the Temporal server from the environment',
  help: `Usage: cairn worker [--task-queue <queue>]

Runs a Cairn worker (the agentRun workflow, every agent's tools, the model activity) on the
server the environment names, until SIGINT or SIGTERM. Connection settings are the Temporal CLI's:
TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*,
TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE. Model keys: OPENAI_API_KEY, OLLAMA_BASE_URL,
CAIRN_MODEL_BASE_URL, CAIRN_MODEL_API_KEY. Worker logs go to stderr (CAIRN_LOG_LEVEL, default WARN).

Options:
  --task-queue <queue>  Task queue to poll (default: ${DEFAULT_TASK_QUEUE})
  --json                Print one JSON line once polling: { address, namespace, taskQueue, uiUrl,
                        embeddedServer }
  -h, --help            Show this help`,

  async run(argv, io) {
    const { values } = parseCommandLine('worker', argv, { options: { 'task-queue': { type: 'string' } }, required: [] });
    // Loaded once the command line checks out: the worker, the agents and the model providers.
    const { connectFromEnvironment, installRuntime, runCairnWorker } = await import('../worker-process.js');
    installRuntime();
    const connected = await connectFromEnvironment().catch((error: Error) => {
      throw new CliError(`Cannot connect to Temporal (${error.message.split('\n')[0]}); check TEMPORAL_ADDRESS.`);
    });
    try {
      await runCairnWorker(connected, { taskQueue: values['task-queue'] ?? DEFAULT_TASK_QUEUE, embeddedServer: false, io });
    } finally {
      await connected.close().catch(() => {});
    }
    return 0;
  },
};
