/**
 * The client side of a connection, for the short-lived commands (run, answer, review, watch,
 * show). Same settings as runtime/connection.ts (@temporalio/envconfig: TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*, temporal.toml profiles), but without the
 * worker's NativeConnection, so these commands never load the native bridge. With
 * CAIRN_CODEC_KEYS set, payloads are encrypted and decrypted (runtime/payload-codec.ts). Node-only.
 */
import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { dataConverterFromEnvironment } from '../runtime/payload-codec.js';
import { uiUrlFor, type TemporalTarget } from '../runtime/temporal-target.js';
import { CliError } from './errors.js';

/** How long to wait for a server before saying there is none. */
const CONNECT_TIMEOUT_MS = 5_000;

export interface ClientConnection extends TemporalTarget {
  readonly client: Client;
  close(): Promise<void>;
}

/** Connects a client to the server the environment describes; no server → CliError. */
export async function connectClient(env: NodeJS.ProcessEnv = process.env): Promise<ClientConnection> {
  let config;
  try {
    config = loadClientConnectConfig({ overrideEnvVars: env as Record<string, string> });
  } catch (error) {
    throw new CliError(`Cannot read the Temporal connection settings: ${(error as Error).message}`);
  }
  let dataConverter;
  try {
    dataConverter = dataConverterFromEnvironment(env);
  } catch (error) {
    throw new CliError(`Cannot read the payload encryption keys: ${(error as Error).message}`);
  }
  const { connectionOptions, namespace = 'default' } = config;
  const address = connectionOptions.address ?? 'localhost:7233';
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...connectionOptions, address, connectTimeout: CONNECT_TIMEOUT_MS });
  } catch (error) {
    throw new CliError(
      `No Temporal server at ${address} (${(error as Error).message.split('\n')[0]}). Start one with \`cairn dev\`, or set TEMPORAL_ADDRESS.`,
    );
  }
  const uiUrl = uiUrlFor(address, env);
  return {
    address,
    namespace,
    uiUrl,
    client: new Client({ connection, namespace, dataConverter }),
    close: () => connection.close(),
  };
}

/** Runs `fn` with a connected client and always closes it. */
export async function withClient<T>(fn: (connection: ClientConnection) => Promise<T>): Promise<T> {
  const connection = await connectClient();
  try {
    return await fn(connection);
  } finally {
    await connection.close().catch(() => {});
  }
}
