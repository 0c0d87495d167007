/**
 * Optional peer dependencies: packages only some entry points or features need, loaded there and
 * nowhere else, so a project that uses only the root, `/workflow`, `/worker` and `/client` entry
 * points installs none of them. A missing one is one line naming the package and the command that
 * installs it, never a module-resolution stack. Imports nothing: each caller passes its own
 * `import()`, so this file is safe on any side; only Node code calls it.
 */

/** Each optional peer at the version Cairn is tested with (package.json devDependencies; optional-peers.test.ts checks). */
export const OPTIONAL_PEERS = {
  '@a2a-js/sdk': '1.3.0',
  '@ag-ui/core': '1.0.0',
  '@ag-ui/encoder': '1.0.0',
  '@ai-sdk/anthropic': '4.0.105',
  '@ai-sdk/openai-compatible': '3.0.92',
  '@modelcontextprotocol/client': '2.4.0',
  '@modelcontextprotocol/sdk': '1.32.2',
  '@modelcontextprotocol/server': '2.4.0',
  ai: '7.0.173',
} as const;

/**
 * Optional peers of an optional peer: `@a2a-js/sdk`'s gRPC binding needs these (and `@grpc/grpc-js`,
 * which comes with `@temporalio/client`), nothing else of it does, so only `cairnA2AGrpcService`
 * loads them. At the version Cairn is tested with (optional-peers.test.ts checks the installed one).
 */
export const NESTED_PEERS = {
  '@bufbuild/protobuf': '2.17.0',
} as const;

export type OptionalPeer = keyof typeof OPTIONAL_PEERS | keyof typeof NESTED_PEERS;

const VERSIONS: Record<OptionalPeer, string> = { ...OPTIONAL_PEERS, ...NESTED_PEERS };

/** What each optional feature loads: the install line of its missing-peer message names them all. */
export const FEATURE_PEERS = {
  /** `cairn-agents/http`, `cairn serve`, `cairn dev`: AG-UI events and the AI SDK's UI message stream. */
  http: ['@ag-ui/core', '@ag-ui/encoder', 'ai'],
  /** `cairn-agents/mcp`, `cairn mcp`, and MCP tools on a worker (`mcpServer`): MCP 2025-11-25. */
  mcp: ['@modelcontextprotocol/sdk'],
  /** MCP 2026-07-28 (stateless) beside it, where installed: served by `cairn-agents/mcp` and `cairn mcp`. */
  mcpServer2026: ['@modelcontextprotocol/server'],
  /** MCP 2026-07-28 for MCP tools on a worker (`mcpServer`), where installed; else they speak 2025-11-25. */
  mcpClient2026: ['@modelcontextprotocol/client'],
  /** `cairn-agents/a2a`, and a2aAgent tools on a worker. */
  a2a: ['@a2a-js/sdk'],
  /** `cairnA2AGrpcService` (`cairn-agents/a2a`): the SDK's gRPC binding, besides `@a2a-js/sdk` itself. */
  a2aGrpc: ['@bufbuild/protobuf'],
} as const satisfies Record<string, readonly OptionalPeer[]>;

const MARKER = Symbol.for('cairn.MissingPeerError');

/** An optional peer is not installed. Its message is the whole story, in one line; it carries no stack frames. */
export class MissingPeerError extends Error {
  /** The package that is missing. */
  declare readonly peer: OptionalPeer;
  /** What to install: the missing package and the other peers the same feature needs. */
  declare readonly install: readonly OptionalPeer[];

  /** `needer`: what needs it, an entry point (`cairn-agents/http`) or a feature (`MCP tools`). */
  constructor(needer: string, peer: OptionalPeer, install: readonly OptionalPeer[] = [peer]) {
    super(`${needer} needs ${peer}: npm install ${install.map((name) => `${name}@${VERSIONS[name]}`).join(' ')}`);
    // Not enumerable, so that Node prints an uncaught one as its one line; a stack would only show Cairn's loader.
    Object.defineProperties(this, {
      name: { value: 'MissingPeerError', configurable: true },
      peer: { value: peer },
      install: { value: install },
      [MARKER]: { value: true },
      stack: { value: `MissingPeerError: ${this.message}`, writable: true, configurable: true },
    });
  }

  /** Stable across copies of the package. */
  get code(): 'missing_peer' {
    return 'missing_peer';
  }

  static isInstance(value: unknown): value is MissingPeerError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** The peer among `peers` that `error` (Node's "Cannot find package 'x'") says is missing. */
export function missingPeerOf(error: unknown, peers: readonly OptionalPeer[]): OptionalPeer | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const message = String((error as { message?: unknown }).message);
  return peers.find((peer) => message.includes(`'${peer}'`) || message.includes(`'${peer}/`));
}

/**
 * `load()`, or a `MissingPeerError` naming the first of `peers` it could not find (the install
 * command names them all). Other failures pass through as they are.
 */
export async function requirePeers<T>(
  needer: string,
  peers: readonly OptionalPeer[],
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = missingPeerOf(error, peers);
    if (missing) throw new MissingPeerError(needer, missing, peers);
    throw error;
  }
}

/** `requirePeers` for a synchronous load (`createRequire(import.meta.url)(name)`), where the caller cannot wait. */
export function requirePeersSync<T>(needer: string, peers: readonly OptionalPeer[], load: () => T): T {
  try {
    return load();
  } catch (error) {
    const missing = missingPeerOf(error, peers);
    if (missing) throw new MissingPeerError(needer, missing, peers);
    throw error;
  }
}
