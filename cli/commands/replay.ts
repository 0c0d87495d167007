/** `cairn replay`: replay histories (files, or runs on the server) against the current build and name any nondeterminism. */
import { parseCommandLine, type Command } from '../command.js';
import { CliError, UsageError } from '../errors.js';

export const replayCommand: Command = {
  name: 'replay',
  summary: 'Replay run histories against the current build and name any nondeterminism',
  help: `Usage: cairn replay <history.json>… [options]
       cairn replay --query '<visibility query>' [--limit <n>] [options]
       cairn replay --workflow-id <id> [--workflow-id <id>…] [options]

Replays each history against the workflow code this build would run, one at a time, and prints
one line per history: "ok <workflowId>", or "NONDETERMINISTIC <workflowId>: <reason>" when the
code now issues other commands than the run recorded (deploying it would break that run), or
"FAILED <workflowId>: <reason>" when the code cannot run the history at all (an unknown workflow
type, a workflow task that throws), or "UNKNOWN_AGENT <workflowId>: agent "x" is not in this
build" when your project's agents do not include the run's (replay it against the build that has
that agent: --config or --workflows). Exit 1 when any history did not replay cleanly.

Histories come from files (proto JSON, as \`temporal workflow show --output json\` writes them, or
test/histories/*.json), from the runs a visibility query finds on the server, or from workflows
named by id (their latest run); the three can be combined. The workflow code is your project's
agents, bundled as \`cairn worker\` bundles them (the nearest cairn.config.ts, or --config; its deps
are not made), or a workflows file of your own (--workflows). With CAIRN_CODEC_KEYS set, encrypted
payloads are decrypted as the workers do. The replay worker's own logs stay off unless
CAIRN_LOG_LEVEL is set.

Options:
  --query <query>       Replay every run the query finds, e.g.
                        'WorkflowType="agentRun" AND ExecutionStatus="Running"'
  --limit <n>           At most n runs from --query
  --workflow-id <id>    Replay this workflow's latest run (repeatable; no visibility delay)
  --config <file>       The project's config (default: the nearest cairn.config.ts)
  --workflows <file>    Replay against this workflows file (exporting agentRun) instead
  --json                One JSON object per history, one a line:
                        { workflowId, runId, source, status: "ok" | "nondeterministic" | "failed"
                        | "unknown_agent", reason? }
  -h, --help            Show this help

Examples:
  cairn replay test/histories/*.json            # your recorded histories, against your agents
  cairn replay test/histories/*.json --workflows test/fixtures/workflows.ts   # in Cairn's own checkout
  cairn replay --query 'WorkflowType="agentRun" AND ExecutionStatus="Running"'   # before a deploy`,

  async run(argv, io) {
    const { values, positionals: files } = parseCommandLine('replay', argv, {
      options: {
        query: { type: 'string' },
        limit: { type: 'string' },
        'workflow-id': { type: 'string', multiple: true },
        config: { type: 'string' },
        workflows: { type: 'string' },
      },
      required: [],
      // Any number of history files.
      optional: argv.map(() => 'history.json'),
    });
    const workflowIds = values['workflow-id'] ?? [];
    if (values.query !== undefined && !values.query.trim()) throw new UsageError('--query is empty');
    if (workflowIds.some((id) => !id.trim())) throw new UsageError('--workflow-id is empty');
    if (files.length === 0 && values.query === undefined && workflowIds.length === 0)
      throw new UsageError('nothing to replay: name history files, --query or --workflow-id (see cairn replay --help)');
    if (values.limit !== undefined && values.query === undefined)
      throw new UsageError('--limit applies to --query only');
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
      throw new UsageError(`--limit must be a whole number above 0, not "${values.limit}"`);
    if (values.config !== undefined && values.workflows !== undefined)
      throw new UsageError('--config and --workflows name the workflow code twice: give one');

    // Loaded once the command line checks out: the worker (replay), the bundler, the client.
    const { HistoryFileError, readHistoryFile, serverHistories } = await import('../../runtime/replay.js');
    const { countsText, installReplayRuntime, replayAndReport, replayCode } = await import('../replay-run.js');

    // Every file is read before anything replays: a typo fails at once, naming the file.
    const fromFiles = await Promise.all(
      files.map((file) =>
        readHistoryFile(file).catch((error: unknown) =>
          Promise.reject(error instanceof HistoryFileError ? new CliError(error.message) : error),
        ),
      ),
    );
    const code = await replayCode({
      ...(values.config !== undefined && { config: values.config }),
      ...(values.workflows !== undefined && { workflows: values.workflows }),
    });
    await installReplayRuntime();
    const connection =
      values.query !== undefined || workflowIds.length > 0
        ? await (await import('../connect.js')).connectClient()
        : undefined;
    let counts;
    try {
      async function* histories() {
        yield* fromFiles;
        if (connection)
          yield* serverHistories(connection.client, {
            workflowIds,
            ...(values.query !== undefined && { query: values.query }),
            ...(limit !== undefined && { limit }),
          });
      }
      counts = await replayAndReport(code, histories(), io);
    } finally {
      await connection?.close().catch(() => {});
    }

    const total = counts.ok + counts.nondeterministic + counts.failed + counts.unknown_agent;
    if (total === 0) {
      io.line(`Nothing to replay: no run matches ${values.query}.`);
      return 0;
    }
    const bad = total - counts.ok;
    io.line(
      `Replayed ${total} ${total === 1 ? 'history' : 'histories'} against ${code.against}: ${countsText(counts)}.`,
    );
    if (bad > 0)
      io.error(
        `cairn replay: ${bad} of ${total} ${total === 1 ? 'history does' : 'histories do'} not replay on this build; do not deploy it over those runs (docs/upgrades.md).`,
      );
    return bad > 0 ? 1 : 0;
  },
};
