/**
 * How an agent's runs move between builds of your workers under Temporal's Worker Deployment
 * Versioning (docs/upgrades.md): `pinned` runs stay on the build they started on until they end;
 * an agent's `auto-upgrade` runs move to the deployment's current build at a safe point (`upgradeAt`),
 * by continue-as-new onto it, so no run replays on code it did not start on. Until then Temporal
 * keeps them pinned. (A worker's default `auto-upgrade`, for agents that do not choose, is
 * Temporal's own: such runs move at their next workflow task.)
 *
 * Every agent runs as the one workflow type `agentRun`, and Temporal fixes a run's behavior before
 * the workflow reads its input: so the run finds its agent in its start memo (`cairnAgent`, which
 * CairnClient and Cairn's child runs write), and a run without it takes the worker's default.
 * Workflow-safe, deterministic.
 */

/** An agent's choice, as `defineAgent({ versioning })` and `cairn worker --versioning` take it. */
export const AGENT_VERSIONINGS = ['pinned', 'auto-upgrade'] as const;
export type AgentVersioning = (typeof AGENT_VERSIONINGS)[number];

/** Temporal's name for each choice (`VersioningBehavior` of @temporalio/common). */
export const TEMPORAL_BEHAVIORS = {
  pinned: 'PINNED',
  'auto-upgrade': 'AUTO_UPGRADE',
} as const satisfies Record<AgentVersioning, string>;
export type TemporalBehavior = (typeof TEMPORAL_BEHAVIORS)[AgentVersioning];

/**
 * Where an `auto-upgrade` run moves to a newer build, by continue-as-new onto it: `person` (the
 * default) before it waits for a person or takes a person's new message; `turn` also before any
 * model turn. Never between a tool call and its result.
 */
export const UPGRADE_POINTS = ['person', 'turn'] as const;
export type UpgradePoint = (typeof UPGRADE_POINTS)[number];

/** True for `person` or `turn`. */
export function isUpgradePoint(value: unknown): value is UpgradePoint {
  return (UPGRADE_POINTS as readonly unknown[]).includes(value);
}

/** True for `pinned` or `auto-upgrade`. */
export function isAgentVersioning(value: unknown): value is AgentVersioning {
  return (AGENT_VERSIONINGS as readonly unknown[]).includes(value);
}

/** What a run knows of itself when Temporal asks for its behavior, before it reads its input. */
export interface RunVersioningContext {
  /** The agent its start memo names (`cairnAgent`), if any. */
  readonly agent: unknown;
  /**
   * The deployment of the worker running this workflow task ('' or undefined when the worker is
   * not versioned): Temporal fails every workflow task that names a behavior on such a worker.
   */
  readonly deploymentName: string | undefined;
}

/**
 * The behavior a run reports to Temporal, on a versioned worker: PINNED when its agent chooses
 * either (an auto-upgrade run moves itself, at a safe point); else undefined, which leaves the
 * worker's default behavior (or an unversioned worker) in charge.
 */
export function runVersioningBehavior(
  run: RunVersioningContext,
  agents: ReadonlyMap<string, { readonly versioning?: AgentVersioning | undefined }>,
): TemporalBehavior | undefined {
  if (!run.deploymentName) return undefined;
  // A Map finds no agent for a memo value that is not an agent's name, or for no memo at all.
  const choice = agents.get(run.agent as string)?.versioning;
  return choice && TEMPORAL_BEHAVIORS.pinned;
}
