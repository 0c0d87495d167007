/** `cairn answer`: answer a run's pending clarification through the answerClarification Update. */
import { parseCommandLine, type Command } from '../command.js';
import { CAIRN } from '../invocation.js';
import { UsageError } from '../errors.js';
import { objectOrText } from '../json-argument.js';

export const answerCommand: Command = {
  name: 'answer',
  summary: "Answer a run's pending question",
  help: `Usage: cairn answer <workflowId> <text> [--id <questionId>]

Answers the question the run is waiting on (see cairn watch). Text that starts with "{" is a JSON
object naming the missing fields, such as '{"window":"morning"}' (invalid JSON: exit 2); any other
text is sent as it is. The run checks the answer before accepting it: a wrong question id or an
empty answer is refused (exit 1) and nothing is recorded. A closed run (completed, failed,
terminated) is named as closed (exit 1).

Options:
  --id <questionId>  The question to answer (default: the pending one)
  --json             Print one JSON document: { workflowId, questionId, answer }
  -h, --help         Show this help

Example:
  cairn answer cairn-orders-1a2b3c4d "morning, please"`,

  async run(argv, io) {
    const { values, positionals } = parseCommandLine('answer', argv, {
      options: { id: { type: 'string' } },
      required: ['workflowId', 'text'],
    });
    const [workflowId = '', text = ''] = positionals;
    if (values.id !== undefined && !values.id.trim()) throw new UsageError('--id is empty');
    const answer = objectOrText(text);

    const { cairnClient, whileOpen, withClient, withDeadline } = await import('../run-client.js');
    return withClient(async (connection) => {
      const run = cairnClient(connection).run(workflowId);
      const { questionId } = await whileOpen(run, 'answers', () =>
        withDeadline(connection, workflowId, () => run.answer(answer, values.id)),
      );
      io.line(`Answered question ${questionId} of ${workflowId}.`);
      io.line(`  follow it: ${CAIRN} watch ${workflowId}`);
      io.document({ workflowId, questionId, answer });
      return 0;
    });
  },
};
