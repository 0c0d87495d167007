/**
 * Cairn's embedded Temporal dev server: the real `temporal server start-dev`, started through
 * @temporalio/testing, with Cairn's search attributes registered. Node-only.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Connected } from './connection.js';
import { CAIRN_SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';
import { PROJECT_ROOT, resolveTemporalCli } from './temporal-cli.js';

export interface EmbeddedServerOptions {
  /** Keep runs in `.temporal/cairn.db` across restarts (the demo does); tests use memory. */
  readonly persistent?: boolean;
  /** Fixed ports for people (7233 and UI 8233); tests pass nothing and get free ports. */
  readonly port?: number;
  readonly uiPort?: number;
  readonly log?: (line: string) => void;
}

/** Starts the dev server; `close()` stops it. */
export async function startEmbeddedServer(options: EmbeddedServerOptions = {}): Promise<Connected & { env: TestWorkflowEnvironment }> {
  const executable = await resolveTemporalCli({ log: options.log });
  let dbFilename: string | undefined;
  if (options.persistent) {
    await mkdir(join(PROJECT_ROOT, '.temporal'), { recursive: true });
    dbFilename = join(PROJECT_ROOT, '.temporal', 'cairn.db');
  }
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
