/**
 * A Cairn worker: the agentRun workflow (from a prebuilt bundle or a workflows path), the tool
 * activity over every agent's tools, and the model activity. Node-only.
 */
import { Worker, type NativeConnection, type WorkflowBundleOption } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { AnyTool } from '../shared/define-tool.js';
import { createToolActivities } from '../activities/tool-activity.js';
import { createModelActivities } from '../activities/model-activity.js';
import type { ModelClient } from '../activities/model/model-client.js';
import { DEFAULT_TASK_QUEUE } from './temporal-target.js';

export interface CairnWorkerOptions {
  readonly connection: NativeConnection;
  readonly client: Client;
  readonly namespace?: string;
  readonly taskQueue?: string;
  readonly tools: readonly AnyTool[];
  /** Side-effecting dependencies handed to every tool's `execute` as `context.deps`. */
  readonly deps?: unknown;
  readonly resolveModel: (spec: string) => ModelClient;
  readonly workflowBundle?: WorkflowBundleOption;
  readonly workflowsPath?: string;
  /** More activities for workflows of your own bundled beside agentRun. */
  readonly activities?: Readonly<Record<string, (...args: never[]) => Promise<unknown>>>;
}

/** Tool names must be unique across a worker's agents: the tool activity dispatches by name. */
export function uniqueTools(tools: readonly AnyTool[]): AnyTool[] {
  const byName = new Map<string, AnyTool>();
  for (const tool of tools) {
    const seen = byName.get(tool.name);
    if (seen && seen !== tool) throw new Error(`Two different tools are named "${tool.name}"; tool names must be unique per worker.`);
    byName.set(tool.name, tool);
  }
  return [...byName.values()];
}

export async function createCairnWorker(options: CairnWorkerOptions): Promise<Worker> {
  const tools = uniqueTools(options.tools);
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: options.workflowsPath }),
    activities: {
      ...options.activities,
      ...createToolActivities(tools, options.deps),
      ...createModelActivities({ client: options.client, resolve: options.resolveModel, tools }),
    },
  });
}
