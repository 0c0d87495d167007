/**
 * A Worker Deployment as `cairn deploy` shows and changes it (docs/upgrades.md): its builds, which
 * is current and which ramping, how many runs each still has open (pinned ones keep their build's
 * workers needed), and the runs that would move to a newly promoted build. Through the client's
 * WorkflowService and visibility; the same calls as `temporal worker deployment`. Node-only.
 */
import type { Client } from '@temporalio/client';

/** What the server says of a build (temporal.api.enums.v1.WorkerDeploymentVersionStatus). */
export type BuildStatus = 'inactive' | 'current' | 'ramping' | 'draining' | 'drained' | 'created' | 'unknown';
const BUILD_STATUSES: readonly BuildStatus[] = [
  'unknown',
  'inactive',
  'current',
  'ramping',
  'draining',
  'drained',
  'created',
];

export interface DeploymentBuild {
  readonly buildId: string;
  readonly status: BuildStatus;
  readonly createdAt?: Date;
  /** Open runs whose version is this build (visibility: a few seconds behind). */
  readonly openRuns: number;
  /** Of those, the pinned ones: they keep this build's workers needed until they end. */
  readonly pinnedRuns: number;
}

export interface Deployment {
  readonly deploymentName: string;
  /** The build new runs (and auto-upgrade runs) go to; none before the first promotion. */
  readonly current?: string;
  readonly ramping?: { readonly buildId: string; readonly percentage: number };
  /** Newest first. */
  readonly builds: readonly DeploymentBuild[];
}

/**
 * A promotion the server refused; `message` says what to do. `code`: `build_not_polled` (no worker
 * of that build has polled the deployment yet), `promotion_refused` (any other refusal).
 */
export class DeploymentError extends Error {
  override readonly name = 'DeploymentError';
  constructor(
    readonly code: 'build_not_polled' | 'promotion_refused',
    message: string,
  ) {
    super(message);
  }
}

/** The visibility value of a build: `deployment:buildId`. */
export function versionKey(deploymentName: string, buildId: string): string {
  return `${deploymentName}:${buildId}`;
}

/** A string literal of Temporal's visibility query language. */
function literal(text: string): string {
  return JSON.stringify(text);
}

/**
 * The runs that would move to a build promoted in `deploymentName`: open runs of `workflowType`
 * that auto-upgrade in that deployment, or are unversioned on `taskQueue`. Pinned runs never move,
 * so they are not the new build's to replay.
 */
export function movingRunsQuery(options: {
  readonly deploymentName: string;
  readonly taskQueue: string;
  readonly workflowType?: string;
}): string {
  return (
    `WorkflowType = ${literal(options.workflowType ?? 'agentRun')} AND ExecutionStatus = "Running" AND (` +
    `(TemporalWorkerDeployment = ${literal(options.deploymentName)} AND TemporalWorkflowVersioningBehavior = "AutoUpgrade")` +
    ` OR (TemporalWorkflowVersioningBehavior IS NULL AND TaskQueue = ${literal(options.taskQueue)}))`
  );
}

/** The deployment and its builds, or undefined when the server has no deployment of that name. */
export async function describeDeployment(client: Client, deploymentName: string): Promise<Deployment | undefined> {
  let info;
  try {
    info = (
      await client.workflowService.describeWorkerDeployment({ namespace: client.options.namespace, deploymentName })
    ).workerDeploymentInfo;
  } catch (error) {
    if (grpcCode(error) === NOT_FOUND) return undefined;
    throw error;
  }
  const routing = info?.routingConfig;
  const summaries = [...(info?.versionSummaries ?? [])].sort(
    (a, b) => Number(b.createTime?.seconds ?? 0) - Number(a.createTime?.seconds ?? 0),
  );
  const builds = await Promise.all(
    summaries.map(async (summary): Promise<DeploymentBuild> => {
      const buildId = summary.deploymentVersion?.buildId ?? '';
      const version = `TemporalWorkerDeploymentVersion = ${literal(versionKey(deploymentName, buildId))} AND ExecutionStatus = "Running"`;
      const [open, pinned] = await Promise.all([
        client.workflow.count(version),
        client.workflow.count(`${version} AND TemporalWorkflowVersioningBehavior = "Pinned"`),
      ]);
      const created = summary.createTime?.seconds;
      return {
        buildId,
        status: BUILD_STATUSES[summary.status ?? 0] ?? 'unknown',
        ...(created != null && { createdAt: new Date(Number(created) * 1000) }),
        openRuns: open.count,
        pinnedRuns: pinned.count,
      };
    }),
  );
  const current = routing?.currentDeploymentVersion?.buildId;
  const ramping = routing?.rampingDeploymentVersion?.buildId;
  return {
    deploymentName,
    ...(current && { current }),
    ...(ramping && { ramping: { buildId: ramping, percentage: routing?.rampingVersionPercentage ?? 0 } }),
    builds,
  };
}

/** Makes `buildId` the deployment's current build; returns the build that was current. */
export async function setCurrentBuild(
  client: Client,
  options: { readonly deploymentName: string; readonly buildId: string },
): Promise<{ readonly previous?: string }> {
  const answer = await refused(options, () =>
    client.workflowService.setWorkerDeploymentCurrentVersion({ namespace: client.options.namespace, ...options }),
  );
  const previous = answer.previousDeploymentVersion?.buildId;
  return previous ? { previous } : {};
}

/** Sends `percentage` (0–100) of new runs to `buildId`, the rest to the current build. */
export async function setRampingBuild(
  client: Client,
  options: { readonly deploymentName: string; readonly buildId: string; readonly percentage: number },
): Promise<void> {
  await refused(options, () =>
    client.workflowService.setWorkerDeploymentRampingVersion({ namespace: client.options.namespace, ...options }),
  );
}

/** Stops ramping: every new run goes to the current build. */
export async function stopRamping(client: Client, deploymentName: string): Promise<void> {
  await client.workflowService.setWorkerDeploymentRampingVersion({
    namespace: client.options.namespace,
    deploymentName,
    buildId: '',
    percentage: 0,
  });
}

/** Where a task queue sends new runs, and whether a worker of that place polls it (DescribeTaskQueue). */
export interface QueueRouting {
  /** The deployment build new runs go to; absent: unversioned workers take them. */
  readonly current?: { readonly deploymentName: string; readonly buildId: string };
  /** A worker of `current` (or, with none, an unversioned worker) polled the queue within the last poll's span. */
  readonly polled: boolean;
}

/** A poll lasts up to a minute; a worker that has not polled for longer is gone (the server lists pollers for minutes). */
const LIVE_POLLER_MS = 90_000;

/** Where the workflow task queue `taskQueue` sends new runs, and whether a worker there polls it. */
export async function queueRouting(client: Client, taskQueue: string, now = Date.now()): Promise<QueueRouting> {
  const answer = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: 1 /* NORMAL */ },
    taskQueueType: 1 /* WORKFLOW */,
  });
  const version = answer.versioningInfo?.currentDeploymentVersion;
  const current = version?.buildId
    ? { deploymentName: version.deploymentName ?? '', buildId: version.buildId }
    : undefined;
  const polled = (answer.pollers ?? []).some((poller) => {
    const seen = Number(poller.lastAccessTime?.seconds ?? 0) * 1000;
    if (now - seen > LIVE_POLLER_MS) return false;
    const options = poller.deploymentOptions;
    const versioned = options?.workerVersioningMode === 2; /* VERSIONED */
    return current
      ? versioned && options?.deploymentName === current.deploymentName && options?.buildId === current.buildId
      : !versioned;
  });
  return { ...(current && { current }), polled };
}

const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;

function grpcCode(error: unknown): number | undefined {
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } }).code ??
    (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === 'number' ? code : undefined;
}

/** `call`, with the server's refusal of an unknown build or deployment said as what to do. */
async function refused<T>(
  options: { readonly deploymentName: string; readonly buildId: string },
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const code = grpcCode(error);
    if (code !== NOT_FOUND && code !== FAILED_PRECONDITION) throw error;
    const words = serverWords(error);
    const unpolled = /not found|pollers/i.test(words);
    throw new DeploymentError(
      unpolled ? 'build_not_polled' : 'promotion_refused',
      unpolled
        ? `No worker of build "${options.buildId}" has polled deployment "${options.deploymentName}" (the server says: ${words}). ` +
            `Start that build's workers first (cairn worker --deployment-name ${options.deploymentName} --build-id ${options.buildId}); ` +
            '`cairn deploy status` lists the builds that have.'
        : `The server refused to promote build "${options.buildId}" of deployment "${options.deploymentName}": ${words}.`,
    );
  }
}

/** The server's own words, without gRPC's status prefix. */
function serverWords(error: unknown): string {
  const { details, message } = error as { details?: unknown; message?: unknown };
  return String(typeof details === 'string' && details ? details : message).replace(/^\d+ [A-Z_]+: /, '');
}
