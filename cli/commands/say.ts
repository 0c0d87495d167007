/** `cairn say`: a person's message to a run while it works (the sendMessage Update, `run.send`). */
import { parseCommandLine, type Command } from '../command.js';
import { CAIRN } from '../invocation.js';

export const sayCommand: Command = {
  name: 'say',
  summary: 'Send a run a message while it works',
  help: `Usage: cairn say <workflowId> <text>

Sends the run a message as the person it works for. What it does is the agent's onMessage policy:
enqueue (default) delivers it as a user message before the next model turn; interrupt also cuts
the model call in flight short (never a tool); reject refuses it while the run is busy. A refused
message (busy, queue full, finishing, closed, empty or too long) exits 1 and records nothing; a
message the server throttled or did not answer in time exits 1 with what to do.

Options:
  --json      Print one JSON document: { workflowId, text, status, ... }
  -h, --help  Show this help

Example:
  cairn say cairn-orders-1a2b3c4d "Also check order A-1002, please."`,

  async run(argv, io) {
    const { positionals } = parseCommandLine('say', argv, { options: {}, required: ['workflowId', 'text'] });
    const [workflowId = '', text = ''] = positionals;
    const { cairnClient, whileOpen, withClient } = await import('../run-client.js');
    return withClient(async (connection) => {
      const run = cairnClient(connection).run(workflowId);
      const outcome = await whileOpen(run, 'messages', () => run.send(text));
      if (outcome.status === 'accepted') {
        io.line(
          `Sent ${outcome.id} to ${workflowId}: ${outcome.delivery === 'interrupting' ? 'interrupting the model call in flight' : 'delivered before the next model turn'}.`,
        );
        io.line(`  follow it: ${CAIRN} watch ${workflowId}`);
      } else if (outcome.status === 'refused') io.line(`Not sent (${outcome.code}): ${outcome.message}`);
      else if (outcome.status === 'throttled')
        io.line(`Not sent: the server is busy with this run's messages; send again in a moment.`);
      else
        io.line(
          `No answer in time: it may have been taken. Send again with the same update id to know (never taken twice): ${outcome.updateId}`,
        );
      io.document({ workflowId, text, ...outcome });
      return outcome.status === 'accepted' ? 0 : 1;
    });
  },
};
