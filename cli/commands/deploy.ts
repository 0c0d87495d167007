/**
 * `cairn deploy`: roll out a new build of your workers under Worker Deployment Versioning
 * (docs/upgrades.md). `status` shows the deployment's builds and the runs each still holds;
 * `set-current` and `ramp` promote a build, after replaying the open runs that would move to it
 * against this checkout's code and, with an eval module, evaluating the build's change on them (the
 * gate, runtime/deploy-gate.ts); `gate` runs the gate alone. Pinned runs stay on their build.
 */
import { parseCommandLine, type Command } from '../command.js';
import { CliError, UsageError } from '../errors.js';
import { VERSIONING_ENV, versioningFlags, deploymentNameOf } from '../versioning-flags.js';
import { DEFAULT_TASK_QUEUE } from '../../runtime/temporal-target.js';
import type { Io } from '../io.js';
import type { Client } from '@temporalio/client';
import { THRESHOLD_NAMES, thresholdProblem, type GateThresholds } from '../../runtime/deploy-gate-thresholds.js';

const SUBCOMMANDS = ['status', 'set-current', 'ramp', 'gate'] as const;

/** The threshold flags, by the threshold each sets. */
const THRESHOLD_FLAGS = {
  maxChanged: 'max-changed',
  maxNewAsks: 'max-new-asks',
  maxPassRateDrop: 'max-pass-rate-drop',
  minPassRate: 'min-pass-rate',
  maxCostIncrease: 'max-cost-increase',
} as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

export const deployCommand: Command = {
  name: 'deploy',
  summary:
    'Promote a build of your workers (Worker Deployment Versioning), after replaying and evaluating the runs it takes over',
  help: `Usage: cairn deploy status [--deployment-name <name>]
       cairn deploy set-current --build-id <id> [gate options]
       cairn deploy set-current --unversioned
       cairn deploy ramp --build-id <id> --percentage <p> [gate options]
       cairn deploy ramp --stop
       cairn deploy gate --build-id <id> [gate options]

For workers run with Worker Deployment Versioning (cairn worker --deployment-name / --build-id, or
the config's versioning; docs/upgrades.md):

  status       The deployment's builds, newest first: which is current, which ramping, and the
               open runs each holds. A build that was current and has no pinned run open any
               more can stop its workers.
  set-current  Make the build current: new runs start on it, auto-upgrade runs move to it at their
               next workflow task, pinned runs stay where they are. Its workers must be polling.
               --unversioned: no build is current; new runs go to unversioned workers again
               (cairn dev, cairn worker without versioning). No gate.
  ramp         Send --percentage of new runs (and of auto-upgrade runs) to the build, the rest to the
               current one; --stop sends all to the current one again.
  gate         The gate of set-current and ramp, alone: promotes nothing.

The gate: before set-current and ramp, the open runs that would move to the build (auto-upgrade
runs of the deployment, and unversioned runs on its task queue) are replayed against this
checkout's code, as cairn replay does; if any does not replay, nothing is promoted (exit 1). Then,
with --eval <module> (or the config's deployGate), the evaluation it defines (defineEval; docs/evals.md)
runs on its cases plus those runs of its agent, each compared up to where it waits; over a threshold,
nothing is promoted (exit 1) and the runs and decisions that changed are named. Run it from the new
build's checkout or image, with the same CAIRN_CODEC_KEYS as the workers; a roll back (set-current
to a previous build) is gated the same way, from that build's checkout.

Exit codes: 0 promoted (gate: passed), 1 refused by the gate (or the server), 2 a wrong command line.

Options:
  --deployment-name <name>  The deployment (default: CAIRN_DEPLOYMENT_NAME, else the config's
                            versioning.deploymentName, else package.json's name)
  --build-id <id>           The build to promote (default: CAIRN_BUILD_ID)
  --percentage <p>          ramp: the share of runs for the build, above 0 and at most 100
  --stop                    ramp: stop ramping
  --unversioned             set-current: send new runs to unversioned workers, not to a build
  --task-queue <queue>      The task queue of unversioned runs the gate replays (default: the
                            config's, else ${DEFAULT_TASK_QUEUE})
  --config <file>           The project (default: the nearest cairn.config.ts)
  --workflows <file>        The gate replays against this workflows file instead of the project
  --replay-query <query>    The gate replays the runs this visibility query finds instead
  --replay-limit <n>        The gate replays at most n runs
  --skip-replay             Do not replay (the evaluation, if any, still runs)
  --eval <module>           Evaluate this eval module after the replay (default: the config's deployGate)
  --eval-export-name <name> The module's export to evaluate (default: the default export)
  --no-eval                 Skip the config's deployGate evaluation
  --max-changed <share>     Refuse when more than this share (0-1) of evaluated cases change a decision
  --max-new-asks <n>        Refuse when more than n cases would ask a person the recording does not
                            answer (replaces the module's failOnNewHumanAsk gate)
  --max-pass-rate-drop <share>, --min-pass-rate <share>, --max-cost-increase <share>
                            Over the module's gates of the same names
  --allow-errors            A case that cannot be evaluated does not refuse the build
  --no-cache                Run every baseline lane and bundle anew (as cairn eval --no-cache)
  --json                    Print one JSON document: the deployment (status), or the gate's result
                            (what it replayed, the evaluation's gates and changed runs) and what
                            was promoted
  -h, --help                Show this help

Examples:
  cairn deploy status
  cairn deploy set-current --build-id 3f9c2a1
  cairn deploy ramp --build-id 3f9c2a1 --percentage 10
  cairn deploy gate --build-id 3f9c2a1 --eval evals/gate.ts --max-changed 0.1 --json`,

  async run(argv, io) {
    const { values, positionals } = parseCommandLine('deploy', argv, {
      options: {
        'deployment-name': { type: 'string' },
        'build-id': { type: 'string' },
        percentage: { type: 'string' },
        stop: { type: 'boolean' },
        unversioned: { type: 'boolean' },
        'task-queue': { type: 'string' },
        config: { type: 'string' },
        workflows: { type: 'string' },
        'replay-query': { type: 'string' },
        'replay-limit': { type: 'string' },
        'skip-replay': { type: 'boolean' },
        eval: { type: 'string' },
        'eval-export-name': { type: 'string' },
        'no-eval': { type: 'boolean' },
        'no-cache': { type: 'boolean' },
        'allow-errors': { type: 'boolean' },
        'max-changed': { type: 'string' },
        'max-new-asks': { type: 'string' },
        'max-pass-rate-drop': { type: 'string' },
        'min-pass-rate': { type: 'string' },
        'max-cost-increase': { type: 'string' },
      },
      required: ['subcommand'],
    });
    const subcommand = positionals[0] as Subcommand;
    if (!SUBCOMMANDS.includes(subcommand))
      throw new UsageError(
        `unknown subcommand "${positionals[0]}": ${SUBCOMMANDS.join(', ')} (see cairn deploy --help)`,
      );
    const flags = versioningFlags(values);
    if (values.unversioned && (subcommand !== 'set-current' || values['build-id'] !== undefined))
      throw new UsageError('--unversioned is set-current --unversioned, without --build-id');
    const promoting = subcommand !== 'status' && !values.stop && !values.unversioned;
    if (values.unversioned && values.eval !== undefined)
      throw new UsageError('--unversioned has no build to gate: no --eval');
    if (values.eval !== undefined && values['no-eval']) throw new UsageError('--eval and --no-eval: give one');
    const flagged: Record<string, number | boolean> = {};
    for (const [name, flag] of Object.entries(THRESHOLD_FLAGS)) {
      const text = values[flag] as string | undefined;
      if (text === undefined) continue;
      const value = text.trim() === '' ? Number.NaN : Number(text);
      const problem = thresholdProblem(name as keyof GateThresholds, value);
      if (problem) throw new UsageError(`--${flag} ${problem}, not "${text}"`);
      flagged[name] = value;
    }
    if (values['allow-errors']) flagged.allowErrors = true;
    if (promoting && flags.buildId === undefined)
      throw new UsageError(`${subcommand} needs the build: --build-id <id> (or ${VERSIONING_ENV.buildId})`);
    if (values.stop && (subcommand !== 'ramp' || values.percentage !== undefined))
      throw new UsageError('--stop is ramp --stop, without --percentage');
    const percentage = values.percentage === undefined ? undefined : Number(values.percentage);
    if (subcommand === 'ramp' && !values.stop && (percentage === undefined || !(percentage > 0 && percentage <= 100)))
      throw new UsageError(
        `ramp needs --percentage above 0 and at most 100${values.percentage === undefined ? '' : `, not "${values.percentage}"`}`,
      );
    if (subcommand !== 'ramp' && percentage !== undefined) throw new UsageError('--percentage applies to ramp only');
    const limit = values['replay-limit'] === undefined ? undefined : Number(values['replay-limit']);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
      throw new UsageError(`--replay-limit must be a whole number above 0, not "${values['replay-limit']}"`);
    if (values.config !== undefined && values.workflows !== undefined)
      throw new UsageError('--config and --workflows name the workflow code twice: give one');

    // The project, when one is needed: for the deployment's name, the task queue, or the gate's code.
    const { findConfig, loadProject, ProjectConfigError } = await import('../../runtime/project-config.js');
    const replaying = promoting && !values['skip-replay'];
    const configFile = values.config ?? findConfig();
    // The project names the deployment, the task queue and the code; its deployGate, the evaluation.
    const wantsProject =
      flags.deploymentName === undefined ||
      (replaying && (values.workflows === undefined || values['task-queue'] === undefined)) ||
      (promoting && !values['no-eval']);
    const evaluating = promoting && !values['no-eval'];
    const load = (deps: boolean) =>
      loadProject(configFile!, { deps }).catch((error: unknown) =>
        Promise.reject(error instanceof ProjectConfigError ? new CliError(error.message) : error),
      );
    let project = wantsProject && configFile ? await load(false) : undefined;
    const configured = project?.deployGate;
    const module = evaluating ? (values.eval ?? configured?.eval) : undefined;
    // The deps only for an evaluation: read-only tools may run live in it.
    if (project && module !== undefined) project = await load(true);
    if (module === undefined && Object.keys(flagged).length > 0 && promoting)
      throw new UsageError(
        `--${Object.entries(THRESHOLD_FLAGS).find(([name]) => name in flagged)?.[1] ?? 'allow-errors'} is a threshold of the evaluation: give --eval <module> (or the config's deployGate)`,
      );
    if (subcommand === 'gate' && !replaying && module === undefined)
      throw new UsageError('gate with --skip-replay and no evaluation has nothing to check: give --eval <module>');
    const { existsSync } = await import('node:fs');
    if (module !== undefined && !existsSync(module)) throw new CliError(`${module} does not exist.`);
    const fromConfig = module !== undefined && values.eval === undefined;
    const exportName = values['eval-export-name'] ?? (fromConfig ? configured?.exportName : undefined);
    const thresholds: GateThresholds = {
      ...(fromConfig && configured
        ? Object.fromEntries(THRESHOLD_NAMES.flatMap((name) => (name in configured ? [[name, configured[name]]] : [])))
        : {}),
      ...flagged,
    };
    const evaluation: EvaluationRequest | undefined =
      module === undefined
        ? undefined
        : {
            module,
            ...(exportName !== undefined && { exportName }),
            thresholds,
            ...(project && { project }),
            noCache: values['no-cache'] === true,
          };
    const codeFlags = {
      ...(configFile !== undefined && values.workflows === undefined && { config: configFile }),
      ...(values.workflows !== undefined && { workflows: values.workflows }),
    };
    if (flags.deploymentName === undefined && !project)
      throw new UsageError(
        `which deployment? --deployment-name <name> or ${VERSIONING_ENV.deploymentName} (no cairn.config.ts here to name it)`,
      );
    const deploymentName = project ? deploymentNameOf(flags, project) : flags.deploymentName!;
    const taskQueue = values['task-queue'] ?? project?.taskQueue ?? DEFAULT_TASK_QUEUE;

    const deployments = await import('../../runtime/deployments.js');
    const { withClient } = await import('../connect.js');
    return withClient(async ({ client }) => {
      if (subcommand === 'status')
        return status(io, await deployments.describeDeployment(client, deploymentName), deploymentName);
      if (values.unversioned) {
        // Auto-upgrade runs and new runs go to unversioned workers; there is no build's code to gate.
        const { previous } = await deployments.setCurrentBuild(client, { deploymentName, buildId: '' });
        io.line(
          `Deployment "${deploymentName}" has no current build${previous ? ` (it was "${previous}")` : ''}: new runs go to unversioned workers (cairn dev, cairn worker without versioning).` +
            (previous ? ` Pinned runs of "${previous}" stay there until they end.` : ''),
        );
        io.document({ deploymentName, buildId: null, promoted: 'unversioned', previous: previous ?? null });
        return 0;
      }
      if (values.stop) {
        await deployments.stopRamping(client, deploymentName);
        io.line(`Deployment "${deploymentName}" ramps no build: every new run goes to its current build.`);
        io.document({ deploymentName, ramping: null });
        return 0;
      }
      return promote(io, client, {
        subcommand,
        deploymentName,
        buildId: flags.buildId!,
        taskQueue,
        ...(percentage !== undefined && { percentage }),
        ...(values['replay-query'] !== undefined && { query: values['replay-query'] }),
        ...(limit !== undefined && { limit }),
        ...(replaying && { code: codeFlags }),
        ...(evaluation && { evaluation }),
      });
    });
  },
};

/** What `set-current`, `ramp` and `gate` were asked. */
interface PromoteRequest {
  readonly subcommand: 'set-current' | 'ramp' | 'gate';
  readonly deploymentName: string;
  readonly buildId: string;
  readonly taskQueue: string;
  readonly percentage?: number;
  readonly query?: string;
  readonly limit?: number;
  /** Replay against this code (the replay gate); absent: --skip-replay. */
  readonly code?: { readonly config?: string; readonly workflows?: string };
  readonly evaluation?: EvaluationRequest;
}

interface EvaluationRequest {
  readonly module: string;
  readonly exportName?: string;
  readonly thresholds: GateThresholds;
  readonly project?: import('../../runtime/project-config.js').Project;
  readonly noCache: boolean;
}

/** The gate (runtime/deploy-gate.ts), its lines and one JSON document, then the promotion: 0 promoted (or passed), 1 refused. */
async function promote(io: Io, client: Client, request: PromoteRequest): Promise<number> {
  const { deploymentName, buildId, subcommand } = request;
  const { gateBuild } = await import('../../runtime/deploy-gate.js');
  const deployments = await import('../../runtime/deployments.js');
  const query = request.query ?? deployments.movingRunsQuery({ deploymentName, taskQueue: request.taskQueue });
  let replay: import('../../runtime/replay.js').ReplayOptions | false = false;
  if (request.code || request.evaluation) {
    const { installReplayRuntime } = await import('../replay-run.js');
    await installReplayRuntime();
  }
  if (request.code) {
    const { replayCode } = await import('../replay-run.js');
    const code = await replayCode(request.code);
    replay = {
      workflowsPath: code.workflowsPath,
      worker: code.worker,
      ...(code.agents && { agents: code.agents }),
    };
    io.line(`Replaying the runs that would move to build "${buildId}" against ${code.against}: ${query}`);
  }
  const evaluation = request.evaluation;
  // The evaluation's workers need a worker connection, and a client that reads the runs as the workers wrote them.
  const connected = evaluation ? await evaluationConnection(client, evaluation) : undefined;
  let result: import('../../runtime/deploy-gate.js').BuildGateResult;
  try {
    if (evaluation) io.line(`Evaluating ${evaluation.module} on its cases and the runs that would move…`);
    result = await gateBuild({
      client: connected?.client ?? client,
      deploymentName,
      buildId,
      taskQueue: request.taskQueue,
      query,
      ...(request.limit !== undefined && { limit: request.limit }),
      replay,
      onReplayed: (outcome) => {
        const where = outcome.source ? ` (${outcome.source})` : '';
        io.line(
          outcome.status === 'ok'
            ? `ok ${outcome.workflowId}${where}`
            : `${outcome.status.toUpperCase()} ${outcome.workflowId}${where}: ${outcome.reason}`,
        );
      },
      ...(evaluation &&
        connected && {
          evaluation: {
            module: evaluation.module,
            ...(evaluation.exportName !== undefined && { exportName: evaluation.exportName }),
            thresholds: evaluation.thresholds,
            connection: connected.workerConnection,
            namespace: connected.namespace,
            deps: evaluation.project?.deps,
            ...(evaluation.project?.models && { models: evaluation.project.models }),
            ...(connected.worker && { worker: connected.worker }),
            ...(evaluation.noCache && { cacheDir: false }),
          },
        }),
      ...(subcommand === 'set-current' && { promote: { to: 'current' as const } }),
      ...(subcommand === 'ramp' && { promote: { to: 'ramping' as const, percentage: request.percentage! } }),
    });
  } catch (error) {
    throw gateError(error, deployments.DeploymentError);
  } finally {
    await connected?.close().catch(() => {});
  }
  const { replayed, notReplayed } = result;
  const total = replayed ? Object.values(replayed).reduce((sum, n) => sum + n, 0) : 0;
  if (replayed && notReplayed.length > 0) {
    const { countsText } = await import('../replay-run.js');
    io.error(
      `cairn deploy: ${notReplayed.length} of ${total} runs that would move to build "${buildId}" do not replay on this code (${countsText(replayed)}); nothing was promoted. Pin them, fix the build, or move them by hand (docs/upgrades.md).`,
    );
  } else if (replayed)
    io.line(
      total === 0
        ? 'No open run would move to it (pinned runs stay on their build).'
        : total === 1
          ? 'It replays on this code.'
          : `All ${total} replay on this code.`,
    );
  if (result.evaluation) evaluationLines(io, result.evaluation, buildId);
  const document = {
    deploymentName,
    buildId,
    query,
    passed: result.passed,
    promoted: result.promoted,
    ...(result.promoted === 'current' && { previous: result.previous ?? null, upgraded: result.upgraded ?? null }),
    ...(result.promoted === 'ramping' && { percentage: request.percentage }),
    replayed,
    notReplayed: notReplayed.map(({ workflowId, status, reason }) => ({ workflowId, status, reason: reason ?? null })),
    evaluation: result.evaluation && (({ report: _report, ...verdict }) => verdict)(result.evaluation),
  };
  if (!result.passed) {
    if (result.evaluation && notReplayed.length === 0)
      io.error(
        `cairn deploy: the evaluation refuses build "${buildId}" (${crossedText(result.evaluation)}); ${subcommand === 'gate' ? 'it is not fit to promote' : 'nothing was promoted'}.`,
      );
    io.document(document);
    return 1;
  }
  if (result.promoted === 'current') {
    const { previous, upgraded } = result;
    io.line(
      `Build "${buildId}" is the current build of deployment "${deploymentName}"${previous && previous !== buildId ? ` (it was "${previous}")` : ''}: new runs start on it.` +
        (previous && previous !== buildId
          ? ` Pinned runs of "${previous}" stay there until they end; \`cairn deploy status\` shows them drain.`
          : ''),
    );
    if (upgraded && upgraded.signalled.length > 0)
      io.line(
        `${upgraded.signalled.length} auto-upgrade run(s) of other builds told; each moves to it at its next safe point: ${upgraded.signalled.join(', ')}`,
      );
    for (const { workflowId, error } of upgraded?.failed ?? [])
      io.error(`cairn deploy: could not tell ${workflowId}: ${error}`);
  } else if (result.promoted === 'ramping')
    io.line(`Build "${buildId}" of deployment "${deploymentName}" takes ${request.percentage}% of new runs.`);
  else io.line(`The gate passes build "${buildId}"; nothing was promoted (cairn deploy set-current or ramp does).`);
  io.document(document);
  return 0;
}

/** The evaluation's verdict: the gates, then each run or case whose decisions changed. */
function evaluationLines(
  io: Io,
  evaluation: import('../../runtime/deploy-gate.js').GateEvaluationResult,
  buildId: string,
) {
  io.line(
    `Evaluated ${evaluation.evaluated} of ${evaluation.cases} case(s) of agent "${evaluation.agent}" (${evaluation.openRuns} open run(s) that would move to build "${buildId}"), candidate "${evaluation.candidate}": ${evaluation.changed.length} changed.`,
  );
  for (const gate of evaluation.gates)
    io.line(`  ${gate.crossed ? 'CROSSED' : 'ok'} ${gate.gate}: ${gate.actual} (limit ${gate.limit})`);
  for (const item of evaluation.changed) {
    io.line(`${item.open ? 'open run' : 'case'} ${item.id}:`);
    for (const decision of item.decisions) io.line(`  ${decision}`);
    for (const ask of item.newAsks) io.line(`  would ask a person: ${ask}`);
  }
  for (const item of evaluation.errors) io.line(`not evaluated ${item.id} (${item.code}): ${item.message}`);
}

function crossedText(evaluation: import('../../runtime/deploy-gate.js').GateEvaluationResult): string {
  const crossed = evaluation.gates.filter((gate) => gate.crossed);
  const changedRuns = evaluation.changed.filter((item) => item.open).map((item) => item.id);
  return (
    (crossed.length > 0
      ? `crossed ${crossed.map((gate) => `${gate.gate} ${gate.actual} > ${gate.limit}`).join(', ')}`
      : 'no case could be evaluated') +
    (changedRuns.length > 0 ? `; runs whose decisions change: ${changedRuns.join(', ')}` : '')
  );
}

/** A client with the workers' data converter, and a worker connection, for the evaluation's lanes. */
async function evaluationConnection(client: Client, evaluation: EvaluationRequest) {
  const { connectFromEnvironment } = await import('../../runtime/connection.js');
  const { dataConverterFromEnvironment } = await import('../../runtime/payload-codec.js');
  let dataConverter = evaluation.project?.worker?.dataConverter;
  try {
    dataConverter ??= dataConverterFromEnvironment();
  } catch (error) {
    throw new CliError(`Cannot read the payload encryption keys: ${(error as Error).message}`);
  }
  const connected = await connectFromEnvironment().catch((error: Error) => Promise.reject(new CliError(error.message)));
  const { Client: TemporalClient } = await import('@temporalio/client');
  return {
    ...connected,
    client: dataConverter
      ? new TemporalClient({ connection: connected.client.connection, namespace: connected.namespace, dataConverter })
      : client,
    worker:
      evaluation.project?.worker || dataConverter
        ? { ...evaluation.project?.worker, ...(dataConverter && { dataConverter }) }
        : undefined,
  };
}

/** An error of the gate as the CLI says it: a refused promotion, a bundle or module that cannot be used, a bad query. */
function gateError(error: unknown, deploymentError: new (...args: never[]) => Error): unknown {
  if (error instanceof deploymentError) return new CliError((error as Error).message);
  const { name, message, cause } = error as {
    name?: string;
    message?: string;
    cause?: { details?: unknown; message?: unknown };
  };
  if (
    name === 'WorkflowBundleError' ||
    name === 'EvalInputError' ||
    name === 'DefinitionError' ||
    /defineEval/.test(message ?? '')
  )
    return new CliError(message ?? String(error));
  // "Failed to list workflows" says little; the server's reason is in the cause (a bad query).
  if (name === 'ServiceError' && cause)
    return new CliError(
      `${message}: ${typeof cause.details === 'string' && cause.details ? cause.details : String(cause.message)}`,
    );
  return error;
}

/** `cairn deploy status`: one line for the deployment, one per build. */
function status(
  io: Io,
  deployment: import('../../runtime/deployments.js').Deployment | undefined,
  deploymentName: string,
): number {
  if (!deployment)
    throw new CliError(
      `No Worker Deployment "${deploymentName}" on this server: start a versioned worker (cairn worker --deployment-name ${deploymentName}) first.`,
    );
  const { current, ramping, builds } = deployment;
  io.line(
    `Deployment "${deploymentName}": ${current ? `current build "${current}"` : 'no current build'}` +
      `${ramping ? `, ramping "${ramping.buildId}" at ${ramping.percentage}%` : ''}.`,
  );
  const width = Math.max(0, ...builds.map((build) => build.buildId.length));
  for (const build of builds) {
    // Draining or drained: it was current or ramping once. Its workers serve only its pinned runs.
    const retired = build.status === 'draining' || build.status === 'drained';
    const note =
      retired && build.pinnedRuns === 0
        ? '  no pinned run open: its workers can stop'
        : build.status === 'inactive' || build.status === 'created'
          ? '  not promoted (cairn deploy set-current or ramp)'
          : '';
    io.line(
      `  ${build.buildId.padEnd(width)}  ${build.status.padEnd(8)}  ${build.openRuns} open run${build.openRuns === 1 ? '' : 's'} (${build.pinnedRuns} pinned)${note}`,
    );
  }
  io.document(deployment);
  return 0;
}
