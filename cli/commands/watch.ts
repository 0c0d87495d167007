/** `cairn watch`: follow a run's live events until it finishes or waits for a person. */
import { parseCommandLine, type Command } from '../command.js';
import { CliError, UsageError } from '../errors.js';
import { eventLines } from '../event-lines.js';
import { answerCommandLine, reviewCommandLine } from '../format.js';

/** How long watch waits for the run's worker to answer its first read before it gives up (docs/cli.md). */
const GIVE_UP_MS = 10_000;

export const watchCommand: Command = {
  name: 'watch',
  summary: "Follow a run's live events until it finishes or waits for a person",
  help: `Usage: cairn watch <workflowId> [--from <offset>] [--follow]

Reads the run's live event stream (model turns, tool calls and their results, the planner's
decisions, questions, reviews, what people sent) and prints a line for each that matters to a
person: decisions, tool errors (with what a tool threw), pauses, hand-overs, the answer. Stops
when the run has finished, printing the answer (exit 0; a run that ended without its answer —
a cap, a loop, its model unavailable — exits 1 with the code and message on stderr), or when it
waits for a person, printing the question or the tool call to review and the command that
answers it (exit 3). A run that failed, was terminated, cancelled or timed out prints its
events, then ends the watch with its reason on stderr (exit 1); a closed run's questions are
printed as history, with no command to answer them. When no
worker answers within 10 s it says so (naming the run's task queue) and exits 1. The stream
follows continue-as-new.

Options:
  --from <offset>  Start at this offset (resume: the last offset seen, plus one). Default 0
  --follow         Keep reading past questions and reviews, until the run finishes
  --json           Print every event, one JSON object per line, each with its offset
  -h, --help       Show this help`,

  async run(argv, io) {
    const { values, positionals } = parseCommandLine('watch', argv, {
      options: { from: { type: 'string' }, follow: { type: 'boolean' } },
      required: ['workflowId'],
    });
    const [workflowId = ''] = positionals;
    const from = values.from === undefined ? 0 : Number(values.from);
    if (!Number.isSafeInteger(from) || from < 0)
      throw new UsageError(`--from must be an offset (a whole number >= 0), not "${values.from}"`);

    const { cairnClient, closedOutcome, stopped, withClient, withDeadline } = await import('../run-client.js');
    const { EXIT_WAITING_ON_PERSON, endingLine, endingOf } = await import('../run-outcome.js');
    return withClient(async (connection) => {
      const run = cairnClient(connection).run(workflowId);
      // A run that failed before it had a state says how below; no worker to answer says so now
      // (the event stream would wait for one in silence), with how the run ended if it did. Once,
      // within GIVE_UP_MS, not asked again: a busy worker is told apart from none by the message.
      const first = await withDeadline(connection, workflowId, () => run.state(), GIVE_UP_MS).catch(
        async (error: unknown) => {
          if (!(error instanceof CliError)) return undefined;
          const ended = await closedOutcome(run).catch(() => undefined);
          throw ended
            ? new CliError(
                `Run "${workflowId}" ${ended.status}: ${ended.failure}. Its events need a worker to be read: ${error.message}`,
              )
            : error;
        },
      );
      // A closed run waits on nobody: its questions and reviews are history, never "answer with".
      const status = (await run.workflow.describe()).status.name;
      const closedAtStart = status !== 'RUNNING';
      const ended = closedAtStart && status !== 'COMPLETED' ? `, ${status.toLowerCase().replace('_', ' ')}` : '';
      if (first) io.line(`Watching ${workflowId} (agent ${first.agent})${ended}`);
      try {
        for await (const event of run.events({ from })) {
          io.document(event); // under --json: one line per event
          for (const line of eventLines(workflowId, event)) io.line(line);
          if (closedAtStart || (event.type !== 'question' && event.type !== 'review')) continue;
          // Where a person must act: when the run still waits on this (nothing came after it).
          const state = await run.state();
          const pending = state.clarification?.id ?? state.reviews[0]?.toolCallId;
          const asked = event.type === 'question' ? event.clarification.id : event.reviews[0]?.toolCallId;
          // A closed run (terminated while it waited) still answers with its last state: read on to how it ended.
          if (pending === undefined || pending !== asked || (await run.workflow.describe()).status.name !== 'RUNNING')
            continue;
          if (state.clarification) io.line(answerCommandLine(workflowId));
          for (const review of state.reviews) io.line(reviewCommandLine(workflowId, review));
          if (!values.follow) return EXIT_WAITING_ON_PERSON;
        }
      } catch (error) {
        throw await stopped(run, error);
      }
      // The stream ends when the run completed: with its answer (exit 0), or without (exit 1).
      const ending = endingOf(
        await run.result().catch(async (error: unknown) => Promise.reject(await stopped(run, error))),
      );
      if (ending.answered) return 0;
      io.error(`cairn watch: ${endingLine(ending)}`);
      return 1;
    });
  },
};
