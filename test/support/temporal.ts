/**
 * Integration-test plumbing: connect to the run's real dev server, start a worker on a private
 * task queue with the prebuilt bundle, and run scripted agent runs on it.
 */
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { Client, Connection, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Runtime, DefaultLogger, type Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { resolveModel } from '../../activities/model/index.js';
import { ScriptedModel } from '../../testing/scripted-model.js';
import { withTestSandboxTimeLimit } from '../../testing/sandbox-time-limit.js';
import type { Script } from '../../testing/script-steps.js';
import type { ModelClient } from '../../activities/model/model-client.js';
import { createCairnWorker, type CairnWorkerOptions } from '../../runtime/worker.js';
import type { Agent } from '../../shared/agent/define-agent.js';
import { testAgent } from '../fixtures/agents.js';
import type { AgentRunInput, AgentRunResult } from '../../workflows/contract/index.js';

let runtimeInstalled = false;

export interface TestWorker {
  readonly client: Client;
  readonly taskQueue: string;
  readonly worker: Worker;
  /** Registers a script under a fresh name; pass `model` to the run. */
  script(script: Script, name?: string): { model: string; scripted: ScriptedModel };
  /** Starts an agentRun on this worker's queue. */
  start(
    input: AgentRunInput,
    workflowId?: string,
  ): Promise<WorkflowHandleWithFirstExecutionRunId<(input: AgentRunInput) => Promise<AgentRunResult>>>;
  /** Shuts the worker down and starts a new one on the same queue (runs in flight must survive). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export function serverAddress(): string {
  const address = inject('temporalAddress');
  if (!address)
    throw new Error('No Temporal dev server: integration tests need the globalSetup (unset CAIRN_UNIT_ONLY).');
  return address;
}

export async function connectClient(dataConverter?: DataConverter): Promise<Client> {
  return new Client({
    connection: await Connection.connect({ address: serverAddress() }),
    ...(dataConverter && { dataConverter }),
  });
}

/** A worker for the test agent (test/fixtures/agents.ts), or `agents`, with the test bundle. */
export async function startTestWorker(
  options: {
    agents?: readonly Agent[];
    models?: Record<string, ModelClient>;
    /** Activity options of the worker: result limits, a PayloadStore, heartbeats, model bounds. */
    activityOptions?: Pick<CairnWorkerOptions, 'toolActivity' | 'modelActivity'>;
    /** The worker's and the client's data converter (e.g. an encryption codec). */
    dataConverter?: DataConverter;
    /** OpenTelemetry for the worker (test/tracing.test.ts); needs `workflowBundle` made with the tracing interceptors. */
    tracing?: CairnWorkerOptions['tracing'];
    /** Where the worker's models read keys and base URLs (default: `process.env`). */
    modelEnv?: Record<string, string | undefined>;
    /** A bundle of the test workflows other than the shared one (default: the global setup's). */
    workflowBundle?: WorkflowBundleOption;
  } = {},
): Promise<TestWorker> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    runtimeInstalled = true;
  }
  const client = await connectClient(options.dataConverter);
  const connection = await NativeConnection.connect({ address: serverAddress() });
  const taskQueue = `test-${randomUUID()}`;
  const scripts: Record<string, ModelClient> = { ...options.models };
  const create = () =>
    createCairnWorker({
      connection,
      client,
      taskQueue,
      agents: options.agents ?? [testAgent],
      resolveModel: (spec) => resolveModel(spec, { scripts, ...(options.modelEnv && { env: options.modelEnv }) }),
      ...options.activityOptions,
      worker: withTestSandboxTimeLimit(options.dataConverter && { dataConverter: options.dataConverter }),
      ...(options.tracing && { tracing: options.tracing }),
      workflowBundle: options.workflowBundle ?? { codePath: inject('workflowBundlePath') },
    });
  let worker = await create();
  let running = worker.run();
  return {
    client,
    taskQueue,
    get worker() {
      return worker;
    },
    async restart() {
      worker.shutdown();
      await running;
      worker = await create();
      running = worker.run();
    },
    script(script, name = `script-${randomUUID().slice(0, 8)}`) {
      const scripted = new ScriptedModel(name, script);
      scripts[name] = scripted;
      return { model: `scripted:${name}`, scripted };
    },
    start(input, workflowId = `test-${randomUUID()}`) {
      return client.workflow.start<(input: AgentRunInput) => Promise<AgentRunResult>>('agentRun', {
        taskQueue,
        workflowId,
        args: [input],
        workflowExecutionTimeout: '2m',
      });
    },
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
      await client.connection.close();
    },
  };
}
