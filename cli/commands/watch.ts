/** `cairn watch`: follow a run's live events until it finishes or waits for a person. */
import { parseCommandLine, type Command } from '../command.js';
import { CliError, UsageError } from '../errors.js';
import { eventLines } from '../event-lines.js';

export const watchCommand: Command = {
  name: 'watch',
  summary: "Follow a run's live events until it finishes or waits for a person",
  help: `Usage: cairn watch <workflowId> [--from <offset>] [--follow]

Reads the run's live event stream (model turns, tool calls and their results, the planner's
decisions, questions, reviews, what people sent) and prints a line for each that matters to a
person: decisions, tool errors, pauses, hand-overs, the answer. Stops (exit 0) when the run has
finished, printing the answer, or when it waits for a person, printing the question or the tool
call to review and the command that answers it. A run that failed, was terminated, cancelled or
timed out prints its events, then ends the watch with its reason on stderr (exit 1). When no
worker answers within 10 s it says so (naming the run's task queue) and exits 1. The stream
follows continue-as-new.

Options:
  --from <offset>  Start at this offset (resume: the last offset seen, plus one). Default 0
  --follow         Keep reading past questions and reviews, until the run finishes
  --json           Print every event, one JSON object per line, each with its offset
  -h, --help       Show this help`,

  async run(argv, io) {
    const { values, positionals } = parseCommandLine('watch', argv, { options: { from: { type: 'string' }, follow: { type: 'boolean' } }, required: ['workflowId'] });
    const [workflowId = ''] = positionals;
    const from = values.from === undefined ? 0 : Number(values.from);
    if (!Number.isSafeInteger(from) || from < 0) throw new UsageError(`--from must be an offset (a whole number >= 0), not "${values.from}"`);

    const { cairnClient, closedOutcome, readState, stopped, withClient } = await import('../run-client.js');
    return withClient(async (connection) => {
      const run = cairnClient(connection).run(workflowId);
      // A run that failed before it had a state says how below; no worker to answer says so now
      // (the event stream would wait for one in silence), with how the run ended if it did.
      const first = await readState(connection, run).catch(async (error: unknown) => {
        if (!(error instanceof CliError)) return undefined;
        const ended = await closedOutcome(run).catch(() => undefined);
        throw ended ? new CliError(`Run "${workflowId}" ${ended.status}: ${ended.failure}. Its events need a worker to be read: ${error.message}`) : error;
      });
      if (first) io.line(`Watching ${workflowId} (agent ${first.agent})`);
      try {
        for await (const event of run.events({ from })) {
          io.document(event); // under --json: one line per event
          for (const line of eventLines(workflowId, event)) io.line(line);
          if (values.follow || (event.type !== 'question' && event.type !== 'review')) continue;
          // Stop where a person must act: when the run still waits on this (nothing came after it).
          const state = await run.state();
          const pending = state.clarification?.id ?? state.reviews[0]?.toolCallId;
          const asked = event.type === 'question' ? event.clarification.id : event.reviews[0]?.toolCallId;
          // A closed run (terminated while it waited) still answers with its last state: read on to how it ended.
          if (pending !== undefined && pending === asked && (await run.workflow.describe()).status.name === 'RUNNING') return 0;
        }
      } catch (error) {
        throw await stopped(run, error);
      }
      return 0;
    });
  },
};
