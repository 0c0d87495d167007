/** `cairn show`: print a run's transcript readably. */
import { withinReadDeadline } from '../../client/bounded-read.js';
import { parseCommandLine, type Command } from '../command.js';
import { CliError } from '../errors.js';
import { callsMade, formatMessage, formatSummary } from '../format.js';

export const showCommand: Command = {
  name: 'show',
  summary: "Print a run's transcript: messages, tool calls, results and errors",
  help: `Usage: cairn show <workflowId>

Prints the run's conversation as the model sees it: user and assistant text, each tool call with
its arguments, each tool result, and Cairn's structured errors (code, message and retry hint),
then what the run is waiting for, if anything (exit 3), or how it ended when it failed, was
terminated, timed out or ended without its answer (exit 1). Exit 0: answered, or still working.

When no worker answers for the run within 2 s (every worker stopped, a deploy), it prints what
Temporal keeps of the run instead — its status, what it waits for, its request and its answer —
and says that this may be behind (--json: "stale": true in the state).

Options:
  --json      Print one JSON document: { workflowId, state, transcript, ended? }
  -h, --help  Show this help`,

  async run(argv, io) {
    const { positionals } = parseCommandLine('show', argv, { options: {}, required: ['workflowId'] });
    const [workflowId = ''] = positionals;
    const { cairnClient, closedOutcome, readShown, stopped, withClient } = await import('../run-client.js');
    const { EXIT_WAITING_ON_PERSON, endingLine, endingOf, pendingLines, waitsOnPerson } = await import(
      '../run-outcome.js'
    );
    return withClient(async (connection) => {
      const run = cairnClient(connection).run(workflowId);
      // A run that failed before it answered Queries (unknown agent, no model) can only say how it ended.
      const { state, transcript } = await readShown(connection, run).catch(async (error: unknown) => {
        throw await stopped(run, error);
      });
      const ended = await closedOutcome(run);
      // Read without a worker, a run that closed without completing has only how it ended to show.
      if (state.stale && ended) throw new CliError(`Run "${workflowId}" ${ended.status}: ${ended.failure}`);
      io.line(formatSummary(workflowId, state, callsMade(transcript), ended?.status));
      if (state.stale)
        io.line(
          `(No worker answered for this run within ${run.readDeadlineMs / 1000} s: this is what Temporal keeps of it, and may be behind.)`,
        );
      io.line('');
      for (const message of transcript) for (const line of formatMessage(message)) io.line(line);
      io.line('');
      let code = 0;
      if (ended) {
        io.line(`The run ${ended.status}: ${ended.failure}`);
        code = 1;
      } else if (state.phase === 'done') {
        // Its state says how it ended. A run still open after its end (it lingers for stream
        // readers and push receivers) read without a worker does not: its result, within the deadline.
        const result = state.outcome
          ? { outcome: state.outcome }
          : await withinReadDeadline(run, () => run.result()).catch(() => undefined);
        const ending = result === undefined ? { answered: true as const } : endingOf(result);
        if (!ending.answered) {
          io.line(endingLine(ending));
          code = 1;
        }
      } else if (waitsOnPerson(state)) {
        for (const line of pendingLines(workflowId, state)) io.line(line);
        code = EXIT_WAITING_ON_PERSON;
      } else if (state.phase === 'backing_off') {
        // Why it waits and until when (a provider it cannot reach names the cause), not just its phase.
        const step = state.steps.at(-1);
        if (step?.action === 'back_off') io.line(`Waiting: ${step.detail}`);
      }
      if (state.answer !== null) io.line(`Answer: ${state.answer}`);
      io.document({ workflowId, state, transcript, ...(ended && { ended }) });
      return code;
    });
  },
};
