/**
 * Cairn's embedded Temporal dev server: the real `temporal server start-dev`, started through
 * @temporalio/testing, with Cairn's search attributes registered. The server writes nothing on
 * stdout (no banner) and its error logs on stderr. Node-only.
 */
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Connected } from './connection.js';
import { CAIRN_OPTIONAL_SEARCH_ATTRIBUTES, CAIRN_SEARCH_ATTRIBUTES } from '../workflows/contract/search-attributes.js';
import { lockDatabase, updateLock } from './dev-server-lock.js';
import { resolveTemporalCli } from './temporal-cli.js';

export interface EmbeddedServerOptions {
  /** Keep runs in `.temporal/cairn.db` (under the working directory) across restarts (the demo does); tests use memory. */
  readonly persistent?: boolean;
  /** Keep runs in this SQLite file instead (implies persistent). */
  readonly dbFilename?: string;
  /** Fixed ports for people (7233 and UI 8233); tests pass nothing and get free ports. */
  readonly port?: number;
  readonly uiPort?: number;
  readonly log?: (line: string) => void;
  /** Said when the Temporal CLI must be built first (who waits on it, and how not to). */
  readonly buildNote?: string;
  /**
   * Dynamic config for the server (`--dynamic-config-value KEY=VALUE`, values as JSON). Default
   * FAST_DEV_SERVER_CONFIG; `{}` gives Temporal's defaults (the benches compare the two).
   */
  readonly dynamicConfig?: DynamicConfig;
}

/** Server dynamic config: keys as Temporal names them, values as JSON values. */
export type DynamicConfig = Readonly<Record<string, string | number | boolean>>;

/** The most Signals a run of Cairn's own dev servers takes (`history.maximumSignalsPerExecution`): even at Temporal's largest payloads (2 MB) a flooded run stays small enough to replay quickly on a loaded machine. */
export const MAX_SIGNALS_PER_RUN = 10;

/**
 * What every dev server Cairn starts runs with (`cairn dev`, the demo, startTestEnvironment, the
 * tests, the benches). The dev server has one history shard, and Temporal's defaults read its
 * queues at most 20 times a second and never fire a timer sooner than a second after it is set.
 * Measured on Temporal CLI 1.5.1 (bench/activity-latency.ts, docs/bench.md); only settings that
 * measurably helped are here. Safe for a single-host dev server, not tuning for a cluster.
 */
export const FAST_DEV_SERVER_CONFIG: DynamicConfig = {
  // Workflow and activity tasks reach matching without waiting for the next read of the transfer
  // queue: ~100 ms per activity round trip becomes 10–25 ms.
  'history.transferProcessorMaxPollRPS': 1_000,
  // A workflow task that schedules an activity gets it back in its response, skipping matching
  // (the SDK asks for it by default when it has a free slot): ~3 ms less per activity.
  'system.enableActivityEagerExecution': true,
  // Short durable timers (back-offs, `sleep`, `condition` timeouts) fire on time: a 1 ms timer
  // takes ~1 s by default (every new timer is pushed past now + timerProcessorMaxTimeShift, then
  // waits for a read of the timer queue); with both, 13–22 ms.
  'history.timerProcessorMaxTimeShift': '10ms',
  'history.timerProcessorMaxPollRPS': 1_000,
  // Signals cannot be refused by a workflow and enter history before any handler runs, and while
  // they keep coming the server refuses a continue-as-new: a flood of 1 MB Signals would reach the
  // 50 MB history limit (the run terminated) before the run could hand over. The server refuses a
  // run's Signals past this many (the sender gets an error); a run hands over after half as many
  // (workflows/run-inbox.ts), with a fresh count (docs/planner.md).
  'history.maximumSignalsPerExecution': MAX_SIGNALS_PER_RUN,
  // Priority and Fairness: a run's tasks carry its tenant as the fairness key (CairnClient), so one
  // tenant's backlog does not hold back another's first workflow task (docs/operations.md).
  'matching.enableFairness': true,
  // Fairness (and priority) order each partition of a task queue apart, and a poll takes from any
  // one: with the default four, a tenant's task waits behind another's backlog in its partition.
  // One partition is enough for one node: B behind A's 1,000 runs 1.5× alone instead of 2.2–2.6×
  // (docs/bench.md).
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  // Visibility calls per second for the namespace (default 10): the runs page's charts make up to
  // 19 counts at once, and past the limit each waits for the SDK's retry a second later (p90 of a
  // page with its charts 1.9 s at the default, +56 ms at 1,000: bench/runs-page.ts, docs/http.md).
  'frontend.namespaceRPS.visibility': 1_000,
};

/** `dynamicConfig` as `temporal server start-dev` arguments. */
export function dynamicConfigArgs(config: DynamicConfig): string[] {
  return Object.entries(config).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}

/** The `temporal server start-dev` line that gives a dev server of your own the embedded one's speed (docs/operations.md). */
export function fastDevServerHint(): string {
  return `A dev server of your own runs at Temporal's defaults (each activity ~100 ms, short timers ~1 s). For the embedded server's speed, start it with: ${fastDevServerCommand()}`;
}

/** `temporal server start-dev` with FAST_DEV_SERVER_CONFIG, quoted for a POSIX shell. */
export function fastDevServerCommand(): string {
  const args = dynamicConfigArgs(FAST_DEV_SERVER_CONFIG).map((arg) => (arg.startsWith('--') ? arg : `'${arg}'`));
  return ['temporal server start-dev', ...args].join(' ');
}

/** A port the embedded server was asked to take is taken: the message names it and the way out. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  constructor(
    readonly port: number,
    readonly flag: '--port' | '--ui-port',
  ) {
    super(
      `Port ${port} is already in use (another Temporal server, or another program, listens on it), so no dev server was started there. ` +
        `Pick a free one with ${flag} <port>` +
        (flag === '--port'
          ? `, or use the server that is there: TEMPORAL_ADDRESS=127.0.0.1:${port} cairn dev runs only the worker on it.`
          : '.'),
    );
  }
}

/** Resolves when nobody listens on 127.0.0.1:`port` (the address the server binds); PortInUseError otherwise. */
async function checkPortFree(port: number, flag: PortInUseError['flag']): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, flag) : error),
    );
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * Starts the dev server; `close()` stops it. A fixed port someone already listens on is a
 * PortInUseError before anything starts: the SDK would otherwise wait for *a* server on that port
 * and connect to whichever answers — another project's.
 */
export async function startEmbeddedServer(
  options: EmbeddedServerOptions = {},
): Promise<Connected & { env: TestWorkflowEnvironment }> {
  const dbFilename =
    options.dbFilename === undefined
      ? options.persistent
        ? defaultDbFilename()
        : undefined
      : resolve(options.dbFilename);
  let unlock = async () => {};
  if (dbFilename !== undefined) {
    await mkdir(dirname(dbFilename), { recursive: true });
    // One database, one server: a second one is refused, naming the first (runtime/dev-server-lock.ts).
    unlock = await lockDatabase(dbFilename, {
      pid: process.pid,
      address: `127.0.0.1:${options.port ?? 7233}`,
      ...(options.uiPort !== undefined && { uiUrl: `http://localhost:${options.uiPort}` }),
    });
  }
  let env: TestWorkflowEnvironment;
  try {
    if (options.port !== undefined) await checkPortFree(options.port, '--port');
    if (options.uiPort !== undefined) await checkPortFree(options.uiPort, '--ui-port');
    const executable = await resolveTemporalCli({
      ...(options.log && { log: options.log }),
      ...(options.buildNote && { buildNote: options.buildNote }),
    });
    // The SDK gives the server 5 s to answer; a busy machine (CI on two shared cores) can take longer
    // to start it: try again, a few times, rather than fail the test run or `cairn dev`.
    env = await startWithRetries(
      () =>
        TestWorkflowEnvironment.createLocal({
          server: {
            executable,
            dbFilename,
            ip: '127.0.0.1',
            port: options.port,
            ui: options.uiPort !== undefined,
            uiPort: options.uiPort,
            searchAttributes: [...CAIRN_SEARCH_ATTRIBUTES, ...CAIRN_OPTIONAL_SEARCH_ATTRIBUTES],
            log: { format: 'pretty', level: 'error' },
            // The SDK forwards the server's stdout to ours, where `cairn dev --json` allows only JSON;
            // the banner's address and UI are what Cairn prints itself.
            extraArgs: ['--output', 'none', ...dynamicConfigArgs(options.dynamicConfig ?? FAST_DEV_SERVER_CONFIG)],
          },
        }),
      options.log,
    );
  } catch (error) {
    await unlock();
    throw error;
  }
  const uiUrl = options.uiPort !== undefined ? `http://localhost:${options.uiPort}` : undefined;
  // A port the server picked itself: the lock names the address it really has.
  if (dbFilename !== undefined && options.port === undefined)
    await updateLock(dbFilename, { pid: process.pid, address: env.address, ...(uiUrl && { uiUrl }) });
  const namespace = env.namespace ?? 'default';
  return {
    env,
    address: env.address,
    namespace,
    uiUrl,
    client: env.client,
    workerConnection: env.nativeConnection,
    close: async () => {
      try {
        await env.teardown();
      } finally {
        await unlock();
      }
    },
  };
}

/** `start`, again up to twice when the server did not answer in the SDK's start window (a loaded machine). */
async function startWithRetries<T>(start: () => Promise<T>, log?: (line: string) => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= 3 || !/did not start within/.test((error as Error).message)) throw error;
      log?.(
        `The Temporal dev server did not start in time (a busy machine?); starting it again (${attempt + 1} of 3).`,
      );
    }
  }
}

/** Where `cairn dev` and the demo keep runs: `.temporal/cairn.db` under the working directory. */
export function defaultDbFilename(cwd: string = process.cwd()): string {
  return join(cwd, '.temporal', 'cairn.db');
}
