/**
 * `cairn deploy`: roll out a new build of your workers under Worker Deployment Versioning
 * (docs/upgrades.md). `status` shows the deployment's builds and the runs each still holds;
 * `set-current` and `ramp` promote a build, after replaying the open runs that would move to it
 * against this checkout's code (the gate); pinned runs stay on their build and are not replayed.
 */
import { parseCommandLine, type Command } from '../command.js';
import { CliError, UsageError } from '../errors.js';
import { VERSIONING_ENV, versioningFlags, deploymentNameOf } from '../versioning-flags.js';
import { DEFAULT_TASK_QUEUE } from '../../runtime/temporal-target.js';
import type { Io } from '../io.js';

const SUBCOMMANDS = ['status', 'set-current', 'ramp'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

export const deployCommand: Command = {
  name: 'deploy',
  summary: 'Promote a build of your workers (Worker Deployment Versioning), after replaying the runs it takes over',
  help: `Usage: cairn deploy status [--deployment-name <name>]
       cairn deploy set-current --build-id <id> [gate options]
       cairn deploy set-current --unversioned
       cairn deploy ramp --build-id <id> --percentage <p> [gate options]
       cairn deploy ramp --stop

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

The gate: before set-current and ramp, the open runs that would move to the build (auto-upgrade
runs of the deployment, and unversioned runs on its task queue) are replayed against this
checkout's code, as cairn replay does; if any does not replay, nothing is promoted (exit 1). Run it
from the new build's checkout or image, with the same CAIRN_CODEC_KEYS as the workers.

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
  --skip-replay             Promote without the gate
  --json                    Print one JSON document: the deployment (status), or what was promoted
                            and what the gate replayed
  -h, --help                Show this help

Examples:
  cairn deploy status
  cairn deploy set-current --build-id 3f9c2a1
  cairn deploy ramp --build-id 3f9c2a1 --percentage 10`,

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
    const gate = promoting && !values['skip-replay'];
    const configFile = values.config ?? findConfig();
    const wantsProject =
      flags.deploymentName === undefined ||
      (gate && (values.workflows === undefined || values['task-queue'] === undefined));
    const project =
      wantsProject && configFile
        ? await loadProject(configFile, { deps: false }).catch((error: unknown) =>
            Promise.reject(error instanceof ProjectConfigError ? new CliError(error.message) : error),
          )
        : undefined;
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
      const buildId = flags.buildId!;
      let replayed: Record<string, number> | undefined;
      if (gate) {
        const query = values['replay-query'] ?? deployments.movingRunsQuery({ deploymentName, taskQueue });
        const { countsText, installReplayRuntime, replayAndReport, replayCode } = await import('../replay-run.js');
        const { serverHistories } = await import('../../runtime/replay.js');
        const code = await replayCode({
          ...(configFile !== undefined && values.workflows === undefined && { config: configFile }),
          ...(values.workflows !== undefined && { workflows: values.workflows }),
        });
        await installReplayRuntime();
        io.line(`Replaying the runs that would move to build "${buildId}" against ${code.against}: ${query}`);
        const counts = await replayAndReport(
          code,
          serverHistories(client, { query, ...(limit !== undefined && { limit }) }),
          io,
        );
        const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
        replayed = counts;
        if (total - counts.ok > 0) {
          io.error(
            `cairn deploy: ${total - counts.ok} of ${total} runs that would move to build "${buildId}" do not replay on this code (${countsText(counts)}); nothing was promoted. Pin them, fix the build, or move them by hand (docs/upgrades.md).`,
          );
          io.document({ deploymentName, buildId, promoted: false, replayed });
          return 1;
        }
        io.line(
          total === 0
            ? 'No open run would move to it (pinned runs stay on their build).'
            : total === 1
              ? 'It replays on this code.'
              : `All ${total} replay on this code.`,
        );
      }
      try {
        if (subcommand === 'set-current') {
          const { previous } = await deployments.setCurrentBuild(client, { deploymentName, buildId });
          io.line(
            `Build "${buildId}" is the current build of deployment "${deploymentName}"${previous && previous !== buildId ? ` (it was "${previous}")` : ''}: new runs start on it.` +
              (previous && previous !== buildId
                ? ` Pinned runs of "${previous}" stay there until they end; \`cairn deploy status\` shows them drain.`
                : ''),
          );
          io.document({
            deploymentName,
            buildId,
            promoted: 'current',
            previous: previous ?? null,
            replayed: replayed ?? null,
          });
        } else {
          await deployments.setRampingBuild(client, { deploymentName, buildId, percentage: percentage! });
          io.line(`Build "${buildId}" of deployment "${deploymentName}" takes ${percentage}% of new runs.`);
          io.document({ deploymentName, buildId, promoted: 'ramping', percentage, replayed: replayed ?? null });
        }
      } catch (error) {
        throw error instanceof deployments.DeploymentError ? new CliError(error.message) : error;
      }
      return 0;
    });
  },
};

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
