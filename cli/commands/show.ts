/** `cairn show`: print a run's transcript readably. */
import { parseCommandLine, type Command } from '../command.js';
import { formatMessage, formatQuestion, formatReview, formatSummary } from '../format.js';

export const showCommand: Command = {
  name: 'show',
  summary: "Print a run's transcript: messages, tool calls, results and errors",
  help: `Usage: cairn show <workflowId>

Prints the run's conversation as the model sees it: user and assistant text, each tool call with
its arguments, each tool result, and Cairn's structured errors (code, message and retry hint),
then what the run is waiting for, if anything, or how it ended when it failed, was terminated or
timed out.

Options:
  --json      Print one JSON document: { workflowId, state, transcript, ended? }
  -h, --help  Show this help`,

  async run(argv, io) {
    const { positionals } = parseCommandLine('show', argv, { options: {}, required: ['workflowId'] });
    const [workflowId = ''] = positionals;
    const { cairnClient, closedOutcome, readTranscript, stopped, withClient } = await import('../run-client.js');
    return withClient(async (connection) => {
      const run = cairnClient(connection).run(workflowId);
      // A run that failed before it answered Queries (unknown agent, no model) can only say how it ended.
      const { state, transcript } = await readTranscript(connection, run).catch(async (error: unknown) => {
        throw await stopped(run, error);
      });
      const ended = await closedOutcome(run);
      io.line(formatSummary(workflowId, state));
      io.line('');
      for (const message of transcript) for (const line of formatMessage(message)) io.line(line);
      io.line('');
      if (ended) {
        io.line(`The run ${ended.status}: ${ended.failure}`);
      } else {
        if (state.clarification) for (const line of formatQuestion(workflowId, state.clarification)) io.line(line);
        for (const review of state.reviews) for (const line of formatReview(workflowId, review)) io.line(line);
      }
      if (state.answer !== null) io.line(`Answer: ${state.answer}`);
      io.document({ workflowId, state, transcript, ...(ended && { ended }) });
      return 0;
    });
  },
};
