/**
 * Connection settings, read the way the Temporal CLI reads them (@temporalio/envconfig):
 * TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*, and `temporal.toml`
 * profiles (TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE). Client and worker use the same settings.
 */
import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { NativeConnection } from '@temporalio/worker';
import { uiUrlFor, type TemporalTarget } from './temporal-target.js';

export interface Connected extends TemporalTarget {
  readonly client: Client;
  readonly workerConnection: NativeConnection;
  close(): Promise<void>;
}

/** True when the user pointed Cairn at a server of their own. */
export function hasExternalServer(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.TEMPORAL_ADDRESS || env.TEMPORAL_PROFILE || env.TEMPORAL_CONFIG_FILE);
}

/** Connects client and worker to the server the environment and profile describe. */
export async function connectFromEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<Connected> {
  const { connectionOptions, namespace = 'default' } = loadClientConnectConfig({
    overrideEnvVars: env as Record<string, string>,
  });
  const address = connectionOptions.address ?? 'localhost:7233';
  const options = { ...connectionOptions, address };
  let connection: Connection;
  try {
    connection = await Connection.connect(options);
  } catch (error) {
    // gRPC's own error is a trace that does not name the address: say which server was missing.
    throw new Error(
      `No Temporal server at ${address} (${String((error as Error).message).split('\n')[0]}). Start one (\`npx cairn dev\`, or \`temporal server start-dev\`), or set TEMPORAL_ADDRESS.`,
      { cause: error },
    );
  }
  const workerConnection = await NativeConnection.connect(options).catch(async (error: unknown) => {
    await connection.close();
    throw error;
  });
  const uiUrl = uiUrlFor(address, env);
  return {
    address,
    namespace,
    uiUrl,
    client: new Client({ connection, namespace }),
    workerConnection,
    async close() {
      await workerConnection.close();
      await connection.close();
    },
  };
}
