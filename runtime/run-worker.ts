/**
 * runCairnWorker: connect, create the worker, run it until SIGINT or SIGTERM, disconnect. What a
 * production worker process (`node src/worker.ts`, `cairn worker`) needs. Node-only.
 */
import { connectFromEnvironment, type Connected } from './connection.js';
import { DEFAULT_TASK_QUEUE } from './temporal-target.js';
import { createCairnWorker, type CairnWorkerOptions } from './worker.js';

export interface RunCairnWorkerOptions extends Omit<CairnWorkerOptions, 'connection' | 'client' | 'namespace'> {
  /**
   * Where to run. Default: the server the environment names, read as the Temporal CLI reads it
   * (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*, temporal.toml profiles).
   */
  readonly connected?: Connected;
  /** Called once the worker polls. */
  readonly onReady?: (where: { readonly address: string; readonly namespace: string; readonly taskQueue: string; readonly uiUrl?: string }) => void;
}

/** Runs a Cairn worker until the process is told to stop (the Temporal runtime's shutdown signals). */
export async function runCairnWorker(options: RunCairnWorkerOptions): Promise<void> {
  const { connected: given, onReady, ...rest } = options;
  const connected = given ?? (await connectFromEnvironment());
  try {
    const worker = await createCairnWorker({ ...rest, connection: connected.workerConnection, client: connected.client, namespace: connected.namespace });
    const running = worker.run();
    onReady?.({ address: connected.address, namespace: connected.namespace, taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE, ...(connected.uiUrl && { uiUrl: connected.uiUrl }) });
    await running;
  } finally {
    if (!given) await connected.close().catch(() => {});
  }
}
