/**
 * runCairnWorker: connect, create the worker, run it until SIGINT or SIGTERM, disconnect. What a
 * production worker process (`node src/worker.ts`, `cairn worker`) needs. With CAIRN_CODEC_KEYS set
 * (and no `worker.dataConverter` given), payloads are encrypted (runtime/payload-codec.ts); with
 * OTEL_EXPORTER_OTLP_ENDPOINT set (and no `tracing` given), spans go to that OTLP endpoint
 * (runtime/tracing.ts, docs/tracing.md); with CAIRN_RUN_STORE set (and no `store` given), the
 * fleet's run store is the one it names, pruned of values older than CAIRN_RUN_STORE_MAX_AGE_DAYS
 * (default 30; docs/cluster.md). Node-only.
 */
import { Client } from '@temporalio/client';
import { connectFromEnvironment, type Connected } from './connection.js';
import { dataConverterFromEnvironment } from './payload-codec.js';
import { DEFAULT_TASK_QUEUE } from './temporal-target.js';
import { tracingFromEnvironment } from './tracing.js';
import { keepPruned, runStoreFromEnvironment } from './run-store-from-environment.js';
import { createCairnWorker, type CairnWorkerOptions } from './worker.js';

/** `worker.dataConverter` defaults to the AES-256-GCM codec CAIRN_CODEC_KEYS configures, when set (docs/encryption.md). */
export interface RunCairnWorkerOptions extends Omit<CairnWorkerOptions, 'connection' | 'client' | 'namespace'> {
  /**
   * Where to run. Default: the server the environment names, read as the Temporal CLI reads it
   * (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*, temporal.toml profiles).
   */
  readonly connected?: Connected;
  /** Called once the worker polls. */
  readonly onReady?: (where: {
    readonly address: string;
    readonly namespace: string;
    readonly taskQueue: string;
    readonly uiUrl?: string;
    /** The build of the deployment this worker serves, when it is versioned (`versioning`). */
    readonly version?: { readonly deploymentName: string; readonly buildId: string };
  }) => void;
}

/** Runs a Cairn worker until the process is told to stop (the Temporal runtime's shutdown signals). */
export async function runCairnWorker(options: RunCairnWorkerOptions): Promise<void> {
  const { connected: given, onReady, ...rest } = options;
  const dataConverter = rest.worker?.dataConverter ?? dataConverterFromEnvironment();
  const tracing = rest.tracing ?? (await tracingFromEnvironment());
  const connected = given ?? (await connectFromEnvironment());
  // A store made from the environment is this process's: closed when the worker stops.
  const ownStore = rest.store ? undefined : runStoreFromEnvironment();
  const store = rest.store ?? ownStore;
  let stopPruning = () => {};
  try {
    if (ownStore) stopPruning = keepPruned(ownStore);
    // The transcript Queries of the model activity decode with the same codecs.
    const client = dataConverter
      ? new Client({ connection: connected.client.connection, namespace: connected.namespace, dataConverter })
      : connected.client;
    const worker = await createCairnWorker({
      ...rest,
      ...(dataConverter && { worker: { ...rest.worker, dataConverter } }),
      ...(tracing && { tracing }),
      ...(store && { store }),
      connection: connected.workerConnection,
      client,
      namespace: connected.namespace,
    });
    const running = worker.run();
    const deployment = worker.options.workerDeploymentOptions;
    onReady?.({
      address: connected.address,
      namespace: connected.namespace,
      taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
      ...(connected.uiUrl && { uiUrl: connected.uiUrl }),
      ...(deployment?.useWorkerVersioning && {
        version: { deploymentName: deployment.version.deploymentName, buildId: deployment.version.buildId },
      }),
    });
    await running;
  } finally {
    stopPruning();
    await ownStore?.close?.().catch(() => {});
    if (!given) await connected.close().catch(() => {});
  }
}
