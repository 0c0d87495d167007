/**
 * startTestEnvironment: your agents on a real Temporal dev server inside your own tests. It
 * starts the embedded dev server (in memory, free ports; or uses `address`), a Cairn worker for
 * your agents and deps on a fresh task queue, and gives you a CairnClient bound to it plus a way
 * to register scripted models per run. Node-only; for tests (vitest runs it in its forks pool).
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type { ModelClient } from '../activities/model/model-client.js';
import { ModelConfigError } from '../activities/model/model-errors.js';
import type { ResolveModelOptions } from '../activities/model/resolve-model.js';
import { CairnClient } from '../client/cairn-client.js';
import { startEmbeddedServer } from '../runtime/embedded-server.js';
import { createCairnWorker, type WorkerTuning } from '../runtime/worker.js';
import type { Agent } from '../shared/agent/define-agent.js';
import type { Script } from './script-steps.js';
import { ScriptedModel } from './scripted-model.js';
import { withTestSandboxTimeLimit } from './sandbox-time-limit.js';

export interface TestEnvironmentOptions {
  /** The agents to serve, as your worker would. */
  readonly agents: readonly Agent[];
  /** What your tools get as `context.deps`: fakes, or real clients on test data. */
  readonly deps?: unknown;
  /** Your workflows file (`export const agentRun = defineAgentRun(agents)`), or a prebuilt bundle. */
  readonly workflowsPath?: string;
  readonly workflowBundle?: WorkflowBundleOption;
  /** Model providers, environment and fixed scripts, besides the ones `script()` registers. */
  readonly models?: ResolveModelOptions;
  /** A running server to use instead of starting one (e.g. `127.0.0.1:7233`). */
  readonly address?: string;
  readonly namespace?: string;
  /** Temporal Worker options, passed through. */
  readonly worker?: WorkerTuning;
}

export interface TestEnvironment {
  /** Starts runs on this environment's worker and talks to them. */
  readonly client: CairnClient;
  /** The Temporal client underneath (histories, describe, anything else). */
  readonly temporal: Client;
  readonly taskQueue: string;
  readonly address: string;
  /** The worker, e.g. to check it is running. */
  readonly worker: Worker;
  /**
   * Registers a script as a model of its own (one ScriptedModel: use it for one run) and returns
   * the spec to start the run with (`model`) and the model, which records every request it gets.
   */
  script(script: Script, name?: string): { readonly model: string; readonly scripted: ScriptedModel };
  /** Stops the worker, the connections and the server. */
  close(): Promise<void>;
}

/** Said when a test would wait on a build of the Temporal CLI: a test hook may time out first. */
const BUILD_NOTE =
  'startTestEnvironment waits for it, and a test hook may time out first: call prepareTemporalCli() from cairn-agents/testing ' +
  "in your test runner's global setup (vitest: globalSetup), which has no timeout, to build it before any test.";

/**
 * Starts the environment; call `close()` when done (e.g. in afterAll). Its dev server needs the
 * Temporal CLI: get it first with `prepareTemporalCli()` in a global setup, so that a machine
 * without it never builds it inside a hook's timeout.
 */
export async function startTestEnvironment(options: TestEnvironmentOptions): Promise<TestEnvironment> {
  installQuietRuntime();
  const server = options.address === undefined ? await startEmbeddedServer({ buildNote: BUILD_NOTE }) : undefined;
  const address = options.address ?? server!.address;
  const namespace = options.namespace ?? server?.namespace ?? 'default';
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const fn of closers.reverse()) await fn().catch(() => {});
  };
  if (server) closers.push(() => server.close());
  try {
    const connection = await Connection.connect({ address });
    closers.push(() => connection.close());
    const workerConnection = await NativeConnection.connect({ address });
    closers.push(() => workerConnection.close());
    const temporal = new Client({ connection, namespace });
    const taskQueue = `cairn-test-${randomUUID()}`;
    const scripts: Record<string, ModelClient> = { ...options.models?.scripts };
    // An agent's own `scripted:<name>` is registered later, by script(steps, name): hold its place,
    // so that the worker's start-up check does not warn about a model the test is about to give.
    for (const agent of options.agents) {
      const name = /^scripted:(.+)$/.exec(agent.model ?? '')?.[1];
      if (name !== undefined && !Object.hasOwn(scripts, name)) scripts[name] = unregistered(name);
    }
    const worker = await createCairnWorker({
      connection: workerConnection,
      namespace,
      taskQueue,
      agents: options.agents,
      deps: options.deps,
      models: { ...options.models, scripts },
      ...(options.workflowBundle
        ? { workflowBundle: options.workflowBundle }
        : { workflowsPath: options.workflowsPath }),
      // A busy test machine must not fail a workflow task on the SDK's 5 s sandbox limit.
      worker: withTestSandboxTimeLimit(options.worker),
    });
    const running = worker.run();
    closers.push(async () => {
      worker.shutdown();
      await running;
    });
    return {
      client: new CairnClient({ client: temporal, taskQueue }),
      temporal,
      taskQueue,
      address,
      worker,
      script(script, name = `script-${randomUUID().slice(0, 8)}`) {
        const scripted = new ScriptedModel(name, script);
        scripts[name] = scripted;
        return { model: `scripted:${name}`, scripted };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Stands for a script the test has not registered yet; a run that calls it fails as an unknown script would. */
function unregistered(name: string): ModelClient {
  return {
    generate: () =>
      Promise.reject(
        new ModelConfigError(
          `No script named "${name}" is registered: register it with env.script(steps, '${name}'), or pass it in models.scripts.`,
        ),
      ),
  };
}

/** The SDK's own logs at WARN, unless the process installed a runtime already. */
function installQuietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Installed before (by the test itself, or a second environment in this process): keep it.
  }
}
