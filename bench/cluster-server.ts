/**
 * The Temporal server of bench/cluster.ts, as docker-compose.yml describes it but without Docker:
 * Temporal server 1.29.1 built with Go (cached in `.cache/temporal-server/`), its schemas set up
 * by temporal-sql-tool on a PostgreSQL you run (libpq's PGHOST, PGPORT, PGUSER, PGPASSWORD;
 * default 127.0.0.1:5432, user postgres), all services in one process on free ports, the
 * compose file's dynamic config (docker/dynamic-config.yaml), namespace `default` and Cairn's
 * search attributes. Drops and recreates the databases `temporal` and `temporal_visibility`.
 * Node-only.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { access, constants, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection, type ConnectionLike } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
// Installed with @temporalio/client (a CommonJS module: its namespace is the default export).
import protos from '@temporalio/proto';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { CAIRN_OPTIONAL_SEARCH_ATTRIBUTES, CAIRN_SEARCH_ATTRIBUTES } from '../workflows/contract/search-attributes.js';

const run = promisify(execFile);
const { IndexedValueType } = protos.temporal.api.enums.v1;

/** The server docker-compose.yml runs (temporalio/auto-setup:1.29.1). */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const MODULE = 'go.temporal.io/server';
const CACHE = join(PACKAGE_ROOT, '.cache', 'temporal-server', TEMPORAL_SERVER_VERSION);
/** auto-setup's default; the server's shards are fixed when its schema is first used. */
const HISTORY_SHARDS = 4;
const DATABASES = ['temporal', 'temporal_visibility'] as const;

export interface ClusterServer {
  readonly address: string;
  readonly namespace: string;
  readonly client: Client;
  /** What the report's header says about the server. */
  readonly description: string;
  /** The run store the bench makes for the workers to share: the server's own PostgreSQL, or a directory here. */
  readonly storeUrl?: string;
  close(): Promise<void>;
}

const isExecutable = (path: string) =>
  access(path, constants.X_OK).then(
    () => true,
    () => false,
  );

/** `go install <package>@version` into the cache as `name`, unless it is there; returns its path. */
async function goBinary(pkg: string, built: string, name: string, log: (line: string) => void): Promise<string> {
  const target = join(CACHE, name);
  if (await isExecutable(target)) return target;
  await mkdir(CACHE, { recursive: true });
  // A private folder and a rename: two concurrent builds never see half a binary.
  const staging = await mkdtemp(join(CACHE, 'build-'));
  log(`Building ${pkg}@${TEMPORAL_SERVER_VERSION} with Go into ${CACHE} (first run only; many minutes on 2 cores)…`);
  try {
    await run('go', ['install', `${MODULE}/${pkg}@${TEMPORAL_SERVER_VERSION}`], {
      env: { ...process.env, GOBIN: staging },
      maxBuffer: 64 * 1024 * 1024,
    });
    await rename(join(staging, built), target);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return target;
}

/** The server module's PostgreSQL schemas, from Go's module cache (the build put the module there). */
async function schemaDir(): Promise<string> {
  if (process.env.TEMPORAL_SCHEMA_DIR) return process.env.TEMPORAL_SCHEMA_DIR;
  const { stdout } = await run('go', ['env', 'GOMODCACHE']);
  return join(stdout.trim(), `${MODULE}@${TEMPORAL_SERVER_VERSION}`, 'schema', 'postgresql', 'v12');
}

const postgres = {
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? 'postgres',
  password: process.env.PGPASSWORD ?? '',
};

/** Fresh databases with Temporal's schemas, as auto-setup makes them. */
async function setUpDatabases(sqlTool: string, log: (line: string) => void): Promise<void> {
  const schemas = await schemaDir();
  const base = [
    '--plugin',
    'postgres12',
    '--ep',
    postgres.host,
    '-p',
    String(postgres.port),
    '-u',
    postgres.user,
    '--pw',
    postgres.password,
  ];
  for (const db of DATABASES) {
    const tool = (...args: string[]) => run(sqlTool, [...base, '--db', db, ...args], { maxBuffer: 16 * 1024 * 1024 });
    await tool('drop-database', '--force');
    await tool('create-database');
    await tool('setup-schema', '-v', '0.0');
    await tool('update-schema', '-d', join(schemas, db === 'temporal' ? 'temporal' : 'visibility', 'versioned'));
  }
  log(`Databases ${DATABASES.join(' and ')} recreated on ${postgres.host}:${postgres.port} with Temporal's schemas.`);
}

/** The server's config: development-postgres12.yaml's shape, on free ports, without archival, metrics or pprof. */
function serverConfig(
  ports: Record<'frontend' | 'http' | 'history' | 'matching' | 'worker', number>,
  membership: Record<string, number>,
): string {
  const datastore = (db: string, conns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${db}
        connectAddr: "${postgres.host}:${postgres.port}"
        connectProtocol: tcp
        user: "${postgres.user}"
        password: "${postgres.password}"
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: 1h`;
  const service = (name: 'frontend' | 'history' | 'matching' | 'worker') => `
  ${name}:
    rpc:
      grpcPort: ${ports[name]}
      membershipPort: ${membership[name]}
      bindOnLocalHost: true${name === 'frontend' ? `\n      httpPort: ${ports.http}` : ''}`;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: ${HISTORY_SHARDS}
  datastores:
    postgres-default:${datastore('temporal', 20)}
    postgres-visibility:${datastore('temporal_visibility', 10)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:${service('frontend')}${service('history')}${service('matching')}${service('worker')}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "127.0.0.1:${ports.frontend}"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "${join(PACKAGE_ROOT, 'docker', 'dynamic-config.yaml')}"
  pollInterval: 10s
`;
}

/**
 * A free port below 32768: the server stores membership ports in a PostgreSQL smallint, and the
 * system's ephemeral ports (what a listen on port 0 gets) are above it.
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export async function until<T>(what: string, timeoutMs: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if ((error as { fatal?: boolean }).fatal) throw error;
      if (Date.now() > deadline)
        throw new Error(`${what}: not within ${timeoutMs / 1000} s (${(error as Error).message})`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/**
 * Namespace `default` (one day of retention) and CairnAgent / CairnPhase, as the compose file's
 * temporal-admin-tools service registers them; resolves once a client of the namespace sees them.
 */
export async function prepareNamespace(connection: ConnectionLike, namespace: string): Promise<void> {
  const registered = await connection.workflowService.describeNamespace({ namespace }).then(
    () => true,
    () => false,
  );
  if (!registered)
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
  const { customAttributes } = await until(`namespace ${namespace}`, 60_000, () =>
    connection.operatorService.listSearchAttributes({ namespace }),
  );
  const missing = [...CAIRN_SEARCH_ATTRIBUTES, ...CAIRN_OPTIONAL_SEARCH_ATTRIBUTES].filter(
    (key) => !Object.hasOwn(customAttributes ?? {}, key.name),
  );
  if (missing.length > 0)
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        missing.map((key) => [key.name, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
      ),
    });
  // The frontend learns of a new namespace on its next refresh (~10 s): wait until a query of it works.
  const client = new Client({ connection, namespace });
  await until(`namespace ${namespace} usable`, 60_000, () =>
    client.workflow.count(`${CAIRN_SEARCH_ATTRIBUTES[0]!.name} = "probe"`),
  );
}

/** Builds (or finds) the server and its SQL tool, recreates the databases, starts the server, prepares the namespace. */
export async function startClusterServer(log: (line: string) => void): Promise<ClusterServer> {
  const server = process.env.TEMPORAL_SERVER_PATH ?? (await goBinary('cmd/server', 'server', 'temporal-server', log));
  const sqlTool =
    process.env.TEMPORAL_SQL_TOOL_PATH ?? (await goBinary('cmd/tools/sql', 'sql', 'temporal-sql-tool', log));
  await setUpDatabases(sqlTool, log);

  const ports = {
    frontend: await freePort(),
    http: await freePort(),
    history: await freePort(),
    matching: await freePort(),
    worker: await freePort(),
  };
  const membership = {
    frontend: await freePort(),
    history: await freePort(),
    matching: await freePort(),
    worker: await freePort(),
  };
  const root = join(PACKAGE_ROOT, '.cache', 'temporal-server', 'cluster');
  await mkdir(join(root, 'config'), { recursive: true });
  await writeFile(join(root, 'config', 'cluster.yaml'), serverConfig(ports, membership));
  const logPath = join(root, 'server.log');
  const logFile = createWriteStream(logPath);
  const child: ChildProcess = spawn(
    server,
    ['--root', root, '--config', 'config', '--env', 'cluster', '--allow-no-auth', 'start'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.pipe(logFile);
  child.stderr!.pipe(logFile);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  };

  try {
    const address = `127.0.0.1:${ports.frontend}`;
    const connection = await until('Temporal server up', 120_000, async () => {
      if (child.exitCode !== null)
        throw Object.assign(new Error(`the server exited (${child.exitCode}); see ${logPath}`), { fatal: true });
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      await connection.workflowService.getSystemInfo({});
      return connection;
    });
    await prepareNamespace(connection, 'default');
    log(
      `Temporal server ${TEMPORAL_SERVER_VERSION} on ${address} (PostgreSQL, ${HISTORY_SHARDS} history shards); its log: ${logPath}`,
    );
    return {
      address,
      namespace: 'default',
      client: new Client({ connection, namespace: 'default' }),
      description: `Temporal server ${TEMPORAL_SERVER_VERSION} (all services in one process, ${HISTORY_SHARDS} history shards, docker/dynamic-config.yaml) on PostgreSQL ${postgres.host}:${postgres.port}`,
      storeUrl: `postgres://${encodeURIComponent(postgres.user)}${postgres.password ? `:${encodeURIComponent(postgres.password)}` : ''}@${postgres.host}:${postgres.port}/postgres`,
      async close() {
        await connection.close();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
