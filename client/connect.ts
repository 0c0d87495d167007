/**
 * connectCairnClient: a CairnClient on the server the environment names, read the way the
 * Temporal CLI reads it (@temporalio/envconfig: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY, TEMPORAL_TLS*, temporal.toml profiles). Node-only (client side).
 */
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { CairnClient } from './cairn-client.js';

export interface ConnectCairnClientOptions {
  /** Where the settings come from. Default: `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** The task queue your Cairn workers poll. Default `cairn`. */
  readonly taskQueue?: string;
  /**
   * Payload codecs (encryption) and converters, as your workers use them. Through
   * `cairn-agents/client` the default is the AES-256-GCM codec CAIRN_CODEC_KEYS configures (none
   * when unset; docs/encryption.md); `{}` turns it off.
   */
  readonly dataConverter?: DataConverter;
}

/** Connects; `close()` on the client closes the connection again. */
export async function connectCairnClient(options: ConnectCairnClientOptions = {}): Promise<CairnClient> {
  const env = options.env ?? process.env;
  const { connectionOptions, namespace = 'default' } = loadClientConnectConfig({
    overrideEnvVars: env as Record<string, string>,
  });
  const address = connectionOptions.address ?? 'localhost:7233';
  const connection = await Connection.connect({ ...connectionOptions, address }).catch((error: unknown) => {
    // gRPC's error names no address: say which server was missing, in one line.
    throw new Error(
      `No Temporal server at ${address} (${String((error as Error).message).split('\n')[0]}). Start one (\`npx cairn dev\`), or set TEMPORAL_ADDRESS.`,
      { cause: error },
    );
  });
  return new CairnClient({
    client: new Client({
      connection,
      namespace,
      ...(options.dataConverter && { dataConverter: options.dataConverter }),
    }),
    ...(options.taskQueue !== undefined && { taskQueue: options.taskQueue }),
  });
}
