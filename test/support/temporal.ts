/**
 * Integration-test plumbing: connect to the run's real dev server, start a worker on a private
 * task queue with the prebuilt bundle, and run scripted agent runs on it.
 */
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { Client, Connection, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger, type Worker } from '@temporalio/worker';
import { ScriptedModel, resolveModel, type Script } from '../../activities/model/index.js';
import type { ModelClient } from '../../activities/model/model-client.js';
import { createCairnWorker } from '../../runtime/worker.js';
import type { AnyTool } from '../../shared/define-tool.js';
import type { AgentRunInput, AgentRunResult } from '../../workflows/messages.js';

let runtimeInstalled = false;

export interface TestWorker {
  readonly client: Client;
  readonly taskQueue: string;
  readonly worker: Worker;
  /** Registers a script under a fresh name; pass `model` to the run. */
  script(script: Script, name?: string): { model: string; scripted: ScriptedModel };
  /** Starts an agentRun on this worker's queue. */
  start(input: AgentRunInput, workflowId?: string): Promise<WorkflowHandleWithFirstExecutionRunId<(input: AgentRunInput) => Promise<AgentRunResult>>>;
  /** Shuts the worker down and starts a new one on the same queue (runs in flight must survive). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export function serverAddress(): string {
  const address = inject('temporalAddress');
  if (!address) throw new Error('No Temporal dev server: integration tests need the globalSetup (unset CAIRN_UNIT_ONLY).');
  return address;
}

export async function connectClient(): Promise<Client> {
  return new Client({ connection: await Connection.connect({ address: serverAddress() }) });
}

export async function startTestWorker(options: { tools: readonly AnyTool[]; models?: Record<string, ModelClient> }): Promise<TestWorker> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    runtimeInstalled = true;
  }
  const client = await connectClient();
  const connection = await NativeConnection.connect({ address: serverAddress() });
  const taskQueue = `test-${randomUUID()}`;
  const scripts: Record<string, ModelClient> = { ...options.models };
  const create = () =>
    createCairnWorker({
      connection,
      client,
      taskQueue,
      tools: options.tools,
      resolveModel: (spec) => resolveModel(spec, { scripts }),
      workflowBundle: { codePath: inject('workflowBundlePath') },
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
