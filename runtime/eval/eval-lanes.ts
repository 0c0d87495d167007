/**
 * An evaluation's two lanes: each bundles its own workflow code from the eval module (the agent as
 * recorded, or the candidate) behind a generated entry, and runs a worker of its own on a task
 * queue named for that code, whose tool (and, on the baseline lane, model) activities serve the
 * recordings (eval-activities.ts). Node-only.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { ResolveModelOptions } from '../../activities/model/resolve-model.js';
import type { ToolActivities } from '../../activities/tool-activity.js';
import { candidateAgent, type EvalDefinition, type EvalLane } from '../../shared/eval/define-eval.js';
import type { AnyTool } from '../../shared/tools/define-tool.js';
import type { ModelOutcome } from '../../shared/model/model-response.js';
import { writeGeneratedEntry } from '../agents-entry.js';
import { bundleWorkflows } from '../workflow-bundle.js';
import { buildCairnWorker, workerTools, type WorkerTuning } from '../worker.js';
import { reachableAgents } from '../../shared/agent/define-agent.js';
import { type AgentSource, findAgentSource } from './agent-source.js';
import { agentDigest } from './baseline-cache.js';
import { inertActivities, recordedModelActivity, recordedToolActivity, type LaneRuns } from './eval-activities.js';
import { leaseLaneWorker } from './lane-workers.js';

/** What the lanes' workers are made with. */
export interface LaneSetup {
  /** Starts the lane runs and reads histories; its data converter decodes them (the workers' codec). */
  readonly client: Client;
  /** The lanes' workers' connection. */
  readonly connection: NativeConnection;
  readonly namespace?: string;
  /** What read-only tools run live with get as `context.deps`. */
  readonly deps?: unknown;
  /** How the candidate's model and judges resolve (providers, scripts, env). */
  readonly models?: ResolveModelOptions;
  /** Worker options for the lanes' workers (the data converter must match the client's). */
  readonly worker?: WorkerTuning;
  /** Where bundles and baselines are kept between evaluations (baseline-cache.ts); false: nowhere. */
  readonly cacheDir?: string | false;
}

export interface Lane {
  /** Whose code the worker runs: the agent's (`baseline`, which serves the candidate lane too when `both`) or the candidate's. */
  readonly lane: EvalLane;
  /** The worker serves both lanes: the candidate changes no code (only its model, policy or name). */
  readonly both: boolean;
  readonly taskQueue: string;
  readonly codeHash: string;
  /** The generated entry, and the files the bundle includes (known when bundles are cached). */
  readonly entry: string;
  readonly files?: readonly string[];
  /** The baseline agent's code digest (baseline-cache.ts: agentDigest), from these files. */
  readonly agentDigest?: string;
  readonly tools: ReadonlyMap<string, AnyTool>;
  /** Lets go of the lane's worker (lane-workers.ts): stopped once no evaluation in this process uses it. */
  release(): Promise<void>;
}

/**
 * Bundles the lane's workflow code (the eval module's agent, or its candidate) and starts its
 * worker. With `both` (a baseline lane whose candidate changes no code) the one worker serves both
 * lanes: one bundle and one worker to start, and the candidate's runs call their model. The worker
 * is shared with any other evaluation in this process whose lane has the same code (lane-workers.ts).
 */
export async function startLane(
  lane: EvalLane,
  modulePath: string,
  exportName: string,
  definition: EvalDefinition,
  runs: LaneRuns,
  options: LaneSetup,
  both = false,
): Promise<Lane> {
  // The agent as recorded is imported from its own module when it can be told: the bundle outlives the eval module.
  const source = lane === 'baseline' ? await findAgentSource(modulePath, definition.agent) : undefined;
  const entry = await writeEvalEntry(modulePath, lane, exportName, source);
  const { code, files } = await bundleWorkflows(entry, {
    payloadConverterPath: options.worker?.dataConverter?.payloadConverterPath,
    failureConverterPath: options.worker?.dataConverter?.failureConverterPath,
    ...(options.cacheDir && { cacheDir: join(options.cacheDir, 'bundles') }),
  });
  const codeHash = createHash('sha256').update(code).digest('hex');
  const taskQueue = `cairn-eval-${lane}-${codeHash.slice(0, 12)}`;
  const agent = lane === 'baseline' ? definition.agent : candidateAgent(definition.agent, definition.candidate);
  // The baseline's code digest (baseline-cache.ts) is read while the worker starts.
  const digest = files ? agentDigest(files, [entry, modulePath], definition.agent) : undefined;
  digest?.catch(() => undefined);
  const namespace = options.namespace ?? options.client.options.namespace;
  // Another evaluation in this process with the same lane code runs this queue's worker already: it serves these runs too.
  const worker = await leaseLaneWorker(options.connection, `${namespace}/${taskQueue}`, runs, (served) =>
    buildCairnWorker(
      {
        connection: options.connection,
        client: options.client,
        namespace,
        taskQueue,
        agents: [agent],
        deps: options.deps,
        // Provider limits hold for an evaluation too; a tenant's budget is not spent on one.
        ...(options.models && { models: { ...options.models, tenantBudgets: undefined } }),
        workflowBundle: { code },
        worker: { ...options.worker, buildId: `cairn-eval@${codeHash.slice(0, 12)}` },
      },
      (activities) => ({
        ...activities,
        ...recordedToolActivity(served, activities as unknown as ToolActivities),
        ...(lane === 'baseline' &&
          recordedModelActivity(served, activities.callModel as (request: never) => Promise<ModelOutcome>)),
        ...inertActivities,
      }),
    ),
  );
  return {
    lane,
    both,
    taskQueue,
    ...(digest && { agentDigest: await digest }),
    codeHash,
    entry,
    ...(files && { files }),
    tools: laneTools(agent),
    release: () => worker.release(),
  };
}

/** The tools of the lane's agent and of the agents it reaches: its agent tools' child runs are served by this lane. */
export function laneTools(agent: Parameters<typeof reachableAgents>[0][number]): ReadonlyMap<string, AnyTool> {
  return new Map(workerTools(reachableAgents([agent])).map((tool) => [tool.name, tool]));
}

/**
 * The lane's generated bundle entry: the eval module's agent (baseline) or candidate, behind
 * defineAgentRun; the baseline's from the agent's own module when `source` says where it is.
 */
function writeEvalEntry(modulePath: string, lane: EvalLane, exportName: string, source?: AgentSource): Promise<string> {
  const workflowEntry = fileURLToPath(new URL('../../entry/workflow.js', import.meta.url));
  if (source) {
    const key = createHash('sha256').update(`${source.file}\0${source.exportName}`).digest('hex').slice(0, 12);
    return writeGeneratedEntry(
      `eval-agent-${key}.js`,
      `// Generated by cairn eval: the workflow entry of the agent ${source.exportName} of ${source.file}, as recorded. Rewritten on every evaluation.\n` +
        `import { ${source.exportName} as agent } from ${JSON.stringify(source.file)};\n` +
        `import { defineAgentRun } from ${JSON.stringify(workflowEntry)};\n\n` +
        `export const agentRun = defineAgentRun([agent]);\n`,
    );
  }
  const key = createHash('sha256').update(`${modulePath}\0${exportName}\0${lane}`).digest('hex').slice(0, 12);
  const evalEntry = fileURLToPath(new URL('../../shared/eval/define-eval.js', import.meta.url));
  return writeGeneratedEntry(
    `eval-${lane}-${key}.js`,
    `// Generated by cairn eval: the ${lane} lane's workflow entry for ${modulePath}. Rewritten on every evaluation.\n` +
      `import * as evalModule from ${JSON.stringify(modulePath)};\n` +
      `import { defineAgentRun } from ${JSON.stringify(workflowEntry)};\n` +
      `import { evalLaneAgents } from ${JSON.stringify(evalEntry)};\n\n` +
      `export const agentRun = defineAgentRun(evalLaneAgents(evalModule, ${JSON.stringify(lane)}, ${JSON.stringify(exportName)}));\n`,
  );
}
