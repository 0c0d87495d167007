/** `cairn run`: start an agentRun; print its workflow id and UI link; `--wait` for the result. */
import { randomUUID } from 'node:crypto';
import { DEFAULT_TASK_QUEUE, runUrl } from '../../runtime/temporal-target.js';
import { parseCommandLine, type Command } from '../command.js';
import { UsageError } from '../errors.js';

export const runCommand: Command = {
  name: 'run',
  summary: 'Start an agent run and print its workflow id and Temporal UI link',
  help: `Usage: cairn run <agent> <prompt> [options]

Starts the agentRun workflow for <agent> with <prompt>, prints the workflow id and the run's
Temporal UI link, and returns (or, with --wait, waits for the answer).

Options:
  --model <spec>        Override the agent's model: openai:<model>, ollama:<model>,
                        openai-compatible:<model>, scripted:<name>
  --id <workflowId>     Workflow id (default: cairn-<agent>-<random>)
  --task-queue <queue>  Task queue of the worker (default: ${DEFAULT_TASK_QUEUE})
  --wait                Wait for the run to finish and print its answer
  --json                Print one JSON document: { workflowId, runId, agent, taskQueue, url, result? }
  -h, --help            Show this help

Example:
  cairn run orders "Where is order A-1001?" --wait`,

  async run(argv, io) {
    const { values, positionals } = parseCommandLine('run', argv, {
      options: { model: { type: 'string' }, id: { type: 'string' }, 'task-queue': { type: 'string' }, wait: { type: 'boolean' } },
      required: ['agent', 'prompt'],
    });
    const [agent = '', prompt = ''] = positionals;
    if (!agent.trim()) throw new UsageError('the agent name is empty');
    if (!prompt.trim()) throw new UsageError('the prompt is empty');
    if (values.id !== undefined && !values.id.trim()) throw new UsageError('--id is empty');
    const workflowId = values.id ?? `cairn-${agent}-${randomUUID().slice(0, 8)}`;
    const taskQueue = values['task-queue'] ?? DEFAULT_TASK_QUEUE;

    const { readFirstState, startRun, withClient } = await import('../run-client.js');
    return withClient(async (connection) => {
      const run = await startRun(connection, { agent, prompt, workflowId, taskQueue, ...(values.model !== undefined && { model: values.model }) });
      // The run's first workflow task checks the agent and its model: a refused run fails here, at once.
      const waiting = await readFirstState(connection, run);
      const url = runUrl(connection, workflowId, run.firstExecutionRunId);
      const started = { workflowId, runId: run.firstExecutionRunId, agent, taskQueue, url: url ?? null };
      io.line(`Started ${workflowId} (agent ${agent}, task queue ${taskQueue})`);
      if (url) io.line(`  ${url}`);
      if (!waiting) io.error(`cairn run: no worker has picked up ${workflowId} yet; it starts once a worker polls task queue "${taskQueue}".`);
      if (!values.wait) {
        io.line(`  follow it: cairn watch ${workflowId}`);
        io.document(started);
        return 0;
      }
      const result = await run.result();
      io.line(`Answer: ${result.answer}`);
      io.line(`  ${result.turns} turn(s), ${result.toolCalls} tool call(s)${result.reason ? `; ended early: ${result.reason}` : ''}`);
      io.document({ ...started, result });
      return 0;
    });
  },
};
