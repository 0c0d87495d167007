/**
 * One build of a Worker Deployment in a test: a versioned Cairn worker of `agents` on its own
 * bundle, each run's model a script by name (the build's name in the model's own, so a request says
 * which build served it), started once the server knows the build.
 */
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { resolveModel } from '../../activities/model/index.js';
import { describeDeployment } from '../../runtime/deployments.js';
import { createCairnWorker } from '../../runtime/worker.js';
import type { Agent } from '../../shared/agent/define-agent.js';
import { ScriptedModel } from '../../testing/scripted-model.js';
import type { Script } from '../../testing/script-steps.js';
import { waitFor } from './runs.js';

export interface VersionedBuild {
  readonly buildId: string;
  readonly models: Record<string, ScriptedModel>;
  stop(): Promise<void>;
}

export async function startVersionedBuild(options: {
  readonly name: string;
  readonly connection: NativeConnection;
  readonly client: Client;
  readonly taskQueue: string;
  readonly deploymentName: string;
  readonly agents: Agent[];
  readonly bundle: { readonly code: string };
  readonly scripts: Record<string, Script>;
}): Promise<VersionedBuild> {
  const { name, client, deploymentName } = options;
  const models = Object.fromEntries(
    Object.entries(options.scripts).map(([run, script]) => [run, new ScriptedModel(`${name}:${run}`, script)]),
  );
  const worker: Worker = await createCairnWorker({
    connection: options.connection,
    client,
    taskQueue: options.taskQueue,
    agents: options.agents,
    resolveModel: (spec) => resolveModel(spec, { scripts: models }),
    workflowBundle: options.bundle,
    // The build id is left to the bundle's hash; runs of agents that do not choose are pinned.
    versioning: { deploymentName },
  });
  const running = worker.run();
  const buildId = worker.options.workerDeploymentOptions!.version.buildId;
  // The server knows a build once its workers have polled.
  await waitFor(
    async () => ((await describeDeployment(client, deploymentName))?.builds ?? []).find((b) => b.buildId === buildId),
    `build ${name} registered`,
  );
  return {
    buildId,
    models,
    stop: async () => {
      worker.shutdown();
      await running;
    },
  };
}
