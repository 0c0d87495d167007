/** `cairn guards`: what output guards in shadow mode would have refused in a run. */
import { parseCommandLine, type Command } from '../command.js';
import { UsageError } from '../errors.js';

export const guardsCommand: Command = {
  name: 'guards',
  summary: 'Report what shadow-mode output guards would have refused in a run, per tool, rule and field',
  help: `Usage: cairn guards <workflowId> [--runs <n>]

Reads the tool results the run recorded (its history, back through continue-as-new) and counts
the violations of output guards in shadow mode (defineTool({ guardMode: 'shadow' })): per tool,
guard, rule and field, with how many calls it fired in and one example message. Use it to see
whether a guard is ready to enforce (docs/tools.md).

Options:
  --runs <n>  Read at most this many runs of the continue-as-new chain (default 50)
  --json      Print one JSON document: { workflowId, runs, truncated, results, counts }
  -h, --help  Show this help`,

  async run(argv, io) {
    const { values, positionals } = parseCommandLine('guards', argv, {
      options: { runs: { type: 'string' } },
      required: ['workflowId'],
    });
    const [workflowId = ''] = positionals;
    const maxRuns = values.runs === undefined ? 50 : Number(values.runs);
    if (!Number.isInteger(maxRuns) || maxRuns < 1)
      throw new UsageError(`--runs must be a whole number of runs, at least 1, not "${values.runs}"`);
    const { withClient } = await import('../run-client.js');
    const { readToolResults } = await import('../tool-results.js');
    const { shadowCounts } = await import('../../shared/guards/shadow-guard.js');
    return withClient(async (connection) => {
      const { results, runs, truncated } = await readToolResults(connection, workflowId, maxRuns);
      const counts = shadowCounts(results);
      const flagged = results.filter((r) => (r.shadow?.length ?? 0) > 0).length;
      const chain = `${runs} run(s)${truncated ? `, the chain goes back further (--runs)` : ''}`;
      io.line(
        `Run ${workflowId}: ${results.length} tool result(s) in ${chain}; ${flagged} with shadow-guard violations.`,
      );
      if (counts.length > 0) {
        io.line('');
        const rows = counts.map((c) => [
          String(c.count),
          String(c.calls),
          c.tool,
          c.guard,
          c.code,
          c.rule,
          c.path || '(whole output)',
          c.example,
        ]);
        const header = ['count', 'calls', 'tool', 'guard', 'code', 'rule', 'field', 'example'];
        const widths = header.slice(0, -1).map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
        const format = (cells: string[]) =>
          cells
            .map((cell, i) => (i < widths.length ? cell.padEnd(widths[i]!) : cell))
            .join('  ')
            .trimEnd();
        io.line(format(header));
        for (const row of rows) io.line(format(row));
      }
      io.document({ workflowId, runs, truncated, results: results.length, counts });
      return 0;
    });
  },
};
