/** `cairn watch`: follow a run's progress until it finishes or waits for a human. */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseCommandLine, type Command } from '../command.js';
import { UsageError } from '../errors.js';
import { awaitsHuman, nothingReported, progress, type WatchEvent } from '../run-progress.js';

const DEFAULT_INTERVAL_MS = 300;

export const watchCommand: Command = {
  name: 'watch',
  summary: "Follow a run's progress until it finishes or waits for a human",
  help: `Usage: cairn watch <workflowId> [--interval <ms>]

Polls the run's state and prints a line for each change: phase and turn, the planner's
decisions, new tool errors, pauses, a forced final turn. Stops (exit 0) when the run has
finished, printing the answer, or when it waits for a human, printing the question or the tool
call to review and the command that answers it.

Options:
  --interval <ms>  How often to poll (default ${DEFAULT_INTERVAL_MS})
  --json           Print one JSON document at the end: { workflowId, outcome, state, events }
  -h, --help       Show this help`,

  async run(argv, io) {
    const { values, positionals } = parseCommandLine('watch', argv, { options: { interval: { type: 'string' } }, required: ['workflowId'] });
    const [workflowId = ''] = positionals;
    const interval = values.interval === undefined ? DEFAULT_INTERVAL_MS : Number(values.interval);
    if (!Number.isFinite(interval) || interval < 10) throw new UsageError(`--interval must be a number of milliseconds (>= 10), not "${values.interval}"`);

    const { readStateWhenReady, withClient } = await import('../run-client.js');
    return withClient(async (connection) => {
      const events: WatchEvent[] = [];
      const reported = nothingReported();
      for (;;) {
        const state = await readStateWhenReady(connection, workflowId);
        if (!reported.previous) io.line(`Watching ${workflowId} (agent ${state.agent})`);
        for (const { event, lines } of progress(workflowId, state, reported)) {
          events.push(event);
          for (const line of lines) io.line(line);
        }
        if (state.phase === 'done' || awaitsHuman(state)) {
          io.document({ workflowId, outcome: state.phase, state, events });
          return 0;
        }
        await sleep(interval);
      }
    });
  },
};
