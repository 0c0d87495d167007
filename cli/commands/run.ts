/** `cairn run`: start an agentRun; print its workflow id and UI link; `--wait` for the result. */
import { randomUUID } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline/promises';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import type { RunState } from '../../workflows/contract/index.js';
import { compact } from '../format.js';
import { DEFAULT_TASK_QUEUE, runUrl } from '../../runtime/temporal-target.js';
import { parseCommandLine, type Command } from '../command.js';
import { UsageError } from '../errors.js';
import { CAIRN } from '../invocation.js';

export const runCommand: Command = {
  name: 'run',
  summary: 'Start an agent run and print its workflow id and Temporal UI link',
  help: `Usage: cairn run <agent> <prompt> [options]

Starts the agentRun workflow for <agent> with <prompt>, prints the workflow id and the run's
Temporal UI link, and returns (or, with --wait, waits for the answer).

With --wait it exits 0 with the answer; 1 when the run failed, was terminated or timed out, or
ended without its answer (a cap, a loop, its model unavailable: the code and message printed);
3 as soon as the run waits on a person, printing the question or the tool calls held for review
(with their arguments) and the exact command that answers each. In a terminal it asks right
there instead (Enter leaves it for later: then it prints the commands and exits 3).

Options:
  --model <spec>        Override the agent's model: openai:<model>, ollama:<model>,
                        openai-compatible:<model>, scripted:<name>
  --id <workflowId>     Workflow id (default: cairn-<agent>-<random>)
  --task-queue <queue>  Task queue of the worker (default: ${DEFAULT_TASK_QUEUE})
  --wait                Wait for the answer (or for a person: exit 3, see above)
  --json                Print one JSON document: { workflowId, runId, agent, taskQueue, url, result?, waiting? }
  -h, --help            Show this help

Example:
  cairn run orders "Where is order A-1001?" --wait`,

  async run(argv, io) {
    const { values, positionals } = parseCommandLine('run', argv, {
      options: {
        model: { type: 'string' },
        id: { type: 'string' },
        'task-queue': { type: 'string' },
        wait: { type: 'boolean' },
      },
      required: ['agent', 'prompt'],
    });
    const [agent = '', prompt = ''] = positionals;
    if (!agent.trim()) throw new UsageError('the agent name is empty');
    if (!prompt.trim()) throw new UsageError('the prompt is empty');
    if (values.id !== undefined && !values.id.trim()) throw new UsageError('--id is empty');
    const workflowId = values.id ?? `cairn-${agent}-${randomUUID().slice(0, 8)}`;
    const taskQueue = values['task-queue'] ?? DEFAULT_TASK_QUEUE;

    const { readFirstState, readTranscript, startRun, stopped, withClient } = await import('../run-client.js');
    const { callsMade, formatCallCount } = await import('../format.js');
    const { pollRun } = await import('../../client/poll-run.js');
    const { EXIT_WAITING_ON_PERSON, endingLine, endingOf, pendingLines, waitsOnPerson } = await import(
      '../run-outcome.js'
    );
    return withClient(async (connection) => {
      const run = await startRun(connection, {
        agent,
        prompt,
        workflowId,
        taskQueue,
        ...(values.model !== undefined && { model: values.model }),
      });
      // From here on Ctrl-C stops the command, not the run: say so, and how to follow it (130: ended by SIGINT).
      const interrupted = () => {
        io.error(`\ncairn run: stopped waiting; ${workflowId} goes on. Follow it: ${CAIRN} watch ${workflowId}`);
        process.exit(130);
      };
      process.once('SIGINT', interrupted);
      // The run's first workflow task checks the agent and its model: a refused run fails here, at once.
      const waiting = await readFirstState(connection, run);
      const url = runUrl(connection, workflowId, run.firstExecutionRunId);
      const started = { workflowId, runId: run.firstExecutionRunId, agent, taskQueue, url: url ?? null };
      io.line(`Started ${workflowId} (agent ${agent}, task queue ${taskQueue})`);
      if (url) io.line(`  ${url}`);
      if (!waiting)
        io.error(
          `cairn run: no worker has picked up ${workflowId} yet; ${await whyNotStarted(connection.client, taskQueue)}`,
        );
      if (!values.wait) {
        io.line(`  follow it: ${CAIRN} watch ${workflowId}`);
        io.document(started);
        return 0;
      }
      // Until the run answers, or waits on a person: then the question or the held calls, with the
      // commands that answer them, and exit 3 (nobody answers a run that waits on this command).
      // In a terminal, the person is right here: ask, and wait on.
      const terminal =
        !io.json && process.stdin.isTTY === true && process.stdout.isTTY === true
          ? createInterface({ input: process.stdin, output: process.stdout })
          : undefined;
      terminal?.once('SIGINT', interrupted);
      try {
        let told = -1;
        for await (const state of pollRun(run, { startGraceMs: 24 * 60 * 60 * 1000 })) {
          // A wait with no model turn (a provider down, rate limits): say why and until when, once per wait.
          const step = state.steps.at(-1);
          if (step?.action === 'back_off' && step.seq > told && state.phase === 'backing_off') {
            told = step.seq;
            io.error(`  waiting: ${step.detail}`);
          }
          if (!waitsOnPerson(state)) continue;
          if (terminal && (await askHere(terminal, run, state))) continue;
          io.line(`Waiting on a person (phase ${state.phase}):`);
          for (const line of pendingLines(workflowId, state)) io.line(`  ${line}`);
          io.line(`  then: ${CAIRN} watch ${workflowId}`);
          io.document({
            ...started,
            waiting: { phase: state.phase, clarification: state.clarification, reviews: state.reviews },
          });
          return EXIT_WAITING_ON_PERSON;
        }
      } catch (error) {
        throw await stopped(run, error);
      } finally {
        terminal?.close();
      }
      const result = await run.result().catch(async (error: unknown) => Promise.reject(await stopped(run, error)));
      const ending = endingOf(result);
      io.line(ending.answered ? `Answer: ${result.answer}` : endingLine(ending));
      // Calls refused before running (validation, policy) are the model's too: count them from the transcript.
      const made = await readTranscript(connection, run).then(
        ({ transcript }) => callsMade(transcript),
        () => undefined,
      );
      io.line(
        `  ${result.turns} turn(s), ${formatCallCount(result.toolCalls, made)}${result.reason ? `; ended early: ${result.reason}` : ''}`,
      );
      // The result's stream is for readers with no worker (GET /runs/:id/events), not for this document.
      const { stream: _stream, ...shown } = result;
      io.document({ ...started, result: shown });
      return ending.answered ? 0 : 1;
    });
  },
};

/**
 * Asks the person at the terminal what the run waits on: the question, then each held call
 * (y: accept, n: reject). True when every one was answered; false when they left it for later
 * (an empty answer, anything but y or n), and the command prints how to answer it from elsewhere.
 */
async function askHere(terminal: Interface, run: AgentRunHandle, state: RunState): Promise<boolean> {
  if (state.clarification) {
    const text = (await terminal.question(`\n? ${state.clarification.question}\n> (empty: answer later) `)).trim();
    if (!text) return false;
    await run.answer(text, state.clarification.id);
    return true;
  }
  for (const review of state.reviews) {
    const reply = (
      await terminal.question(`\n? ${review.name} ${compact(review.args)}: run it? [y]es, [n]o, or Enter for later `)
    )
      .trim()
      .toLowerCase();
    if (reply !== 'y' && reply !== 'yes' && reply !== 'n' && reply !== 'no') return false;
    await run.review(
      review,
      reply.startsWith('y') ? { type: 'accept' } : { type: 'reject', reason: 'declined at the terminal' },
    );
  }
  return true;
}

/**
 * Why no worker took a new run, as the task queue tells: with a current deployment build, only a
 * worker of that build takes it (an unversioned `cairn dev` polling the same queue never will).
 */
async function whyNotStarted(client: import('@temporalio/client').Client, taskQueue: string): Promise<string> {
  const { queueRouting } = await import('../../runtime/deployments.js');
  const routing = await queueRouting(client, taskQueue).catch(() => undefined);
  const current = routing?.current;
  if (!current) return `it starts once a worker polls task queue "${taskQueue}".`;
  const { deploymentName, buildId } = current;
  return (
    `task queue "${taskQueue}" sends new runs to build "${buildId}" of Worker Deployment "${deploymentName}" (its current build), ` +
    `${routing.polled ? 'and no worker of that build has taken it (one polled in the last 90 s: busy, or stopped since)' : 'and no worker of that build polls it'}; unversioned workers (cairn dev) do not take them. ` +
    `Start a worker of that build (${CAIRN} worker --deployment-name ${deploymentName} --build-id ${buildId}), ` +
    `or send new runs to unversioned workers again: ${CAIRN} deploy set-current --deployment-name ${deploymentName} --unversioned`
  );
}
