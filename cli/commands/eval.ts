/** `cairn eval`: replay recorded runs against a changed agent and show every decision that changed (runtime/eval/run-eval.ts). */
import { parseCommandLine, type Command } from '../command.js';
import { CliError, UsageError } from '../errors.js';

export const evalCommand: Command = {
  name: 'eval',
  summary: 'Replay recorded runs against a new model, prompt, tool or policy, and show every decision that changed',
  help: `Usage: cairn eval <eval-module> [options]
       cairn eval --export <dir> --query '<visibility query>' [--limit <n>]

Evaluates the change an eval module describes (export default defineEval({ agent, candidate,
cases, scorers, gates }) from cairn-agents/eval; docs/evals.md). Each case — a recorded run, from
history files or the server, or a dataset prompt — runs twice, as real runs on Temporal: as
recorded (the baseline lane: the recorded model turns, which must reproduce the recording) and
as the candidate (its model, instructions, tools, policy). Tools are answered from the recording;
a tool with side effects never runs. People are answered with what they answered; a question or a
review nobody recorded is reported as "would have asked a person". Prints each case that changed
or failed, with its decisions, then the totals and the gates. Exit 1 when a gate is crossed (or
no case could be evaluated). A module that does not load, or a case that cannot be evaluated (a
missing or unreadable file, another agent's run), stops it before any run starts, with one line
naming the file; --allow-errors evaluates the other cases instead.

Models, deps (for read-only tools run live) and Worker options come from the project's
cairn.config.ts (the nearest one, or --config), when there is one. With TEMPORAL_ADDRESS (or a
profile) set, the runs go to that server; otherwise to an embedded dev server started for the
evaluation (cases from --query need a server of yours). With CAIRN_CODEC_KEYS set, encrypted
histories are read as the workers read them.

Options:
  --export-name <name>  The module's export to evaluate (default: the default export)
  --histories <path>    Cases from these history files or folders instead of the module's (repeatable)
  --query <query>       Cases from the runs this visibility query finds instead (or, with --export, to export)
  --limit <n>           At most n runs from --query (default 100)
  --allow-errors        Evaluate the cases that can be, and pass despite those that cannot
  --no-cache            Run every baseline lane and bundle anew (default: reuse the baselines of the same
                        agent on the same cases, and the bundles, kept in node_modules/.cache/cairn-eval,
                        or $XDG_CACHE_HOME/cairn-eval when set)
  --concurrency <n>     Cases evaluated at once (default: the module's, else 8)
  --report <file.json>  Write the whole report as JSON
  --junit <file.xml>    Write JUnit XML (a test per case, and the gates)
  --html <file.html>    Write an HTML page: every case's decision diff, score, cost and latency charts
  --run-pages <url>     In the HTML page, link each case's baseline and candidate runs to their run pages
                        on the cairn serve (createCairnHttpHandler) at <url>, its base path included:
                        <url>/runs/<workflowId>/page (the runs must be on that server's Temporal)
  --export <dir>        Write the histories --query finds into <dir> (one <workflowId>.json each) and stop
  --config <file>       The project's config (default: the nearest cairn.config.ts, if any)
  --json                The report as one JSON document on stdout
  -h, --help            Show this help

Examples:
  cairn eval --export evals/cases --query 'CairnAgent="support" AND ExecutionStatus="Completed"' --limit 50
  cairn eval evals/gpt-4.1.ts --junit eval.xml --html eval.html
  cairn eval evals/gpt-4.1.ts --html eval.html --run-pages https://ops.example.com/cairn`,

  async run(argv, io) {
    const { values, positionals } = parseCommandLine('eval', argv, {
      options: {
        'export-name': { type: 'string' },
        histories: { type: 'string', multiple: true },
        query: { type: 'string' },
        limit: { type: 'string' },
        concurrency: { type: 'string' },
        'allow-errors': { type: 'boolean' },
        'no-cache': { type: 'boolean' },
        report: { type: 'string' },
        junit: { type: 'string' },
        html: { type: 'string' },
        'run-pages': { type: 'string' },
        export: { type: 'string' },
        config: { type: 'string' },
      },
      required: [],
      optional: ['eval-module'],
    });
    const [module] = positionals;
    const whole = (flag: string, text: string | undefined) => {
      if (text === undefined) return undefined;
      const n = Number(text);
      if (!Number.isInteger(n) || n < 1)
        throw new UsageError(`--${flag} must be a whole number above 0, not "${text}"`);
      return n;
    };
    const limit = whole('limit', values.limit);
    const concurrency = whole('concurrency', values.concurrency);
    if (values.query !== undefined && !values.query.trim()) throw new UsageError('--query is empty');
    const runPagesUrl = values['run-pages'];
    if (runPagesUrl !== undefined) {
      if (values.html === undefined) throw new UsageError('--run-pages needs --html: the page that links the runs');
      if (!/^https?:\/\/[^/]/.test(runPagesUrl) || !URL.canParse(runPagesUrl))
        throw new UsageError(`--run-pages must be an http(s) URL, not "${runPagesUrl}"`);
    }
    if (values.export !== undefined) {
      if (values.query === undefined) throw new UsageError('--export needs --query: the runs to export');
      const { connectClient } = await import('../connect.js');
      const { exportCases } = await import('../../runtime/eval/eval-cases.js');
      const connection = await connectClient();
      try {
        const files = await exportCases(connection.client, {
          query: values.query,
          dir: values.export,
          ...(limit && { limit }),
        });
        io.line(`Exported ${files.length} run(s) into ${values.export}.`);
        io.document({ files });
        return 0;
      } finally {
        await connection.close().catch(() => {});
      }
    }
    if (module === undefined) throw new UsageError('name the eval module (see cairn eval --help)');

    const { existsSync } = await import('node:fs');
    const { writeFile } = await import('node:fs/promises');
    if (!existsSync(module)) throw new CliError(`${module} does not exist.`);
    const { findConfig } = await import('../../runtime/project-config.js');
    const { loadCliProject, installRuntime } = await import('../worker-process.js');
    const configFile = values.config ?? findConfig();
    const project = configFile ? await loadCliProject(configFile) : undefined;
    const { hasExternalServer, connectFromEnvironment } = await import('../../runtime/connection.js');
    const { dataConverterFromEnvironment } = await import('../../runtime/payload-codec.js');
    const { runEval } = await import('../../runtime/eval/run-eval.js');
    const { summaryText, junitXml, htmlReport } = await import('../../runtime/eval/eval-report.js');
    installRuntime();

    let dataConverter = project?.worker?.dataConverter;
    try {
      dataConverter ??= dataConverterFromEnvironment();
    } catch (error) {
      throw new CliError(`Cannot read the payload encryption keys: ${(error as Error).message}`);
    }
    // An embedded server's `close` stops it too.
    const external = hasExternalServer() || values.query !== undefined;
    const connected = external
      ? await connectFromEnvironment().catch((error: Error) => Promise.reject(new CliError(error.message)))
      : await (await import('../../runtime/embedded-server.js')).startEmbeddedServer();
    if (runPagesUrl !== undefined && !external)
      process.stderr.write(
        'cairn eval: --run-pages: the runs go to an embedded dev server that stops with the evaluation; set TEMPORAL_ADDRESS for pages that stay.\n',
      );
    const { Client } = await import('@temporalio/client');
    const client = dataConverter
      ? new Client({ connection: connected.client.connection, namespace: connected.namespace, dataConverter })
      : connected.client;
    const cases =
      values.histories || values.query !== undefined
        ? {
            ...(values.histories && { histories: values.histories }),
            ...(values.query !== undefined && { query: values.query, ...(limit && { limit }) }),
          }
        : undefined;
    const progress = process.stderr.isTTY && !values.json;
    // Ctrl-C stops at once: the lane runs are durable, and running the evaluation again picks them up where they are.
    const interrupted = async () => {
      process.stderr.write('\ncairn eval: interrupted; run it again to resume it.\n');
      await Promise.race([
        connected.close().catch(() => {}),
        new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
      ]);
      process.exit(130);
    };
    process.once('SIGINT', interrupted);
    process.once('SIGTERM', interrupted);
    let report: Awaited<ReturnType<typeof runEval>>;
    try {
      report = await runEval({
        module,
        ...(values['export-name'] && { exportName: values['export-name'] }),
        ...(cases && { cases }),
        client,
        connection: connected.workerConnection,
        namespace: connected.namespace,
        deps: project?.deps,
        ...(project?.models && { models: project.models }),
        ...((project?.worker || dataConverter) && {
          worker: { ...project?.worker, ...(dataConverter && { dataConverter }) },
        }),
        ...(concurrency && { concurrency }),
        ...(values['allow-errors'] && { allowErrors: true }),
        ...(values['no-cache'] && { cacheDir: false }),
        ...(progress && {
          onProgress: (p) =>
            process.stderr.write(
              `\rcairn eval: ${p.done}/${p.total} case(s): ${p.passed} passed, ${p.failed} failed, ${p.errors} error(s)${p.done === p.total ? '\n' : ''}`,
            ),
        }),
      });
    } catch (error) {
      const { name, message } = error as Error;
      if (
        name === 'EvalInputError' ||
        name === 'WorkflowBundleError' ||
        name === 'DefinitionError' ||
        /defineEval/.test(message)
      )
        throw new CliError(message);
      throw error;
    } finally {
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
      await connected.close().catch(() => {});
    }
    if (values.report) await writeFile(values.report, `${JSON.stringify(report, null, 2)}\n`);
    if (values.junit) await writeFile(values.junit, junitXml(report));
    if (values.html) await writeFile(values.html, htmlReport(report, { ...(runPagesUrl && { runPagesUrl }) }));
    for (const line of summaryText(report).trimEnd().split('\n')) io.line(line);
    io.document(report);
    return report.passed ? 0 : 1;
  },
};
