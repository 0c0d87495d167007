/**
 * Cairn's embedded Temporal dev server: the real `temporal server start-dev`, started through
 * @temporalio/testing, with Cairn's search attributes registered. The server writes nothing on
 * stdout (no banner) and its error logs on stderr. Node-only.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Connected } from './connection.js';
import { CAIRN_SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';
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
}

/** Starts the dev server; `close()` stops it. */
export async function startEmbeddedServer(options: EmbeddedServerOptions = {}): Promise<Connected & { env: TestWorkflowEnvironment }> {
  const executable = await resolveTemporalCli({ log: options.log });
  const dbFilename = options.dbFilename ?? (options.persistent ? join(process.cwd(), '.temporal', 'cairn.db') : undefined);
  if (dbFilename !== undefined) await mkdir(dirname(dbFilename), { recursive: true });
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable,
      dbFilename,
      ip: '127.0.0.1',
      port: options.port,
      ui: options.uiPort !== undefined,
      uiPort: options.uiPort,
      searchAttributes: CAIRN_SEARCH_ATTRIBUTES,
      log: { format: 'pretty', level: 'error' },
      // The SDK forwards the server's stdout to ours, where `cairn dev --json` allows only JSON;
      // the banner's address and UI are what Cairn prints itself.
      extraArgs: ['--output', 'none'],
    },
  });
  const namespace = env.namespace ?? 'default';
  return {
    env,
    address: env.address,
    namespace,
    uiUrl: options.uiPort !== undefined ? `http://localhost:${options.uiPort}` : undefined,
    client: env.client,
    workerConnection: env.nativeConnection,
    close: () => env.teardown(),
  };
}
