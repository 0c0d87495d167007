/**
 * The optional peers (shared/optional-peers.ts) stay optional: no module that the root,
 * `/workflow`, `/worker` or `/client` entry point loads imports one statically (a feature that
 * needs one at run time loads it with `import()` or `createRequire`), and only the entry point or
 * feature that names a peer loads it. And, with a peer hidden as if never installed, each entry
 * point says so in one line naming what to install. Needs no server. The installed package is
 * checked in test/package.test.ts.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { FEATURE_PEERS, NESTED_PEERS, OPTIONAL_PEERS, type OptionalPeer } from '../shared/optional-peers.js';

/** Static value imports (not `import type`, not `import()`): what loading the file loads. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/^\s*(import|export)\s+(?!type\s)([^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)];
  // `import { type A, type B } from 'x'` loads nothing either (verbatimModuleSyntax would keep it; tsc elides it).
  return found
    .filter(
      ([, , clause]) => !clause || !/^\{\s*(type\s+\w+(\s+as\s+\w+)?\s*,?\s*)+\}\s*from\s+$/.test(`${clause.trim()} `),
    )
    .map((m) => m[3]!);
}

const peerOf = (spec: string) =>
  Object.keys(OPTIONAL_PEERS).find((peer) => spec === peer || spec.startsWith(`${peer}/`));

/** Every optional peer the file loads, statically and through the project's files it loads, with the chain that reaches it. */
function reachedPeers(entry: string): string[] {
  const reached: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of staticImports(file)) {
      const peer = peerOf(spec);
      if (peer) reached.push(`${[...chain, relative(PACKAGE_ROOT, file)].join(' → ')} → ${spec}`);
      else if (spec.startsWith('.'))
        visit(join(file, '..', spec.replace(/\.js$/, '.ts')), [...chain, relative(PACKAGE_ROOT, file)]);
    }
  };
  visit(join(PACKAGE_ROOT, entry), []);
  return reached;
}

describe('optional peers, statically', () => {
  for (const entry of ['entry/index.ts', 'entry/workflow.ts', 'entry/worker.ts', 'entry/client.ts', 'entry/testing.ts'])
    it(`${entry} loads none of them`, () => expect(reachedPeers(entry)).toEqual([]));

  for (const entry of ['entry/http.ts', 'entry/mcp.ts', 'entry/a2a.ts'])
    it(`${entry} loads its peers only through requirePeers`, () => expect(reachedPeers(entry)).toEqual([]));

  it('are seen where they are loaded (the check sees through re-exports)', () => {
    expect(reachedPeers('servers/http/index.ts').join('\n')).toMatch(/servers\/http\/index\.ts → .* → @ag-ui\/core$/m);
    expect(reachedPeers('servers/http/index.ts').join('\n')).toMatch(/ → ai$/m);
    expect(reachedPeers('servers/mcp/index.ts').join('\n')).toMatch(/@modelcontextprotocol\/sdk\//);
  });
});

interface Outcome {
  /** The entry point's module loaded. */
  readonly loaded: boolean;
  /** What the probe threw, as Node prints it uncaught. */
  readonly printed?: string;
}

/** Imports `entry` (and runs `then` on its exports) in a Node where the `hidden` packages are not installed. */
async function withoutPackages(entry: string, hidden: readonly string[], then = ''): Promise<Outcome> {
  const url = (path: string) => pathToFileURL(join(PACKAGE_ROOT, path)).href;
  const probe = `
    import { inspect } from 'node:util';
    let loaded = false;
    try { const m = await import(${JSON.stringify(url(entry))}); loaded = true; ${then} }
    catch (error) { console.log(JSON.stringify({ loaded, printed: inspect(error) })); process.exit(0); }
    console.log(JSON.stringify({ loaded }));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--import', url('test/fixtures/hide-packages.mjs'), '--input-type=module', '-e', probe],
    { cwd: PACKAGE_ROOT, env: { ...process.env, HIDE: hidden.join(',') } },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Outcome;
}

const installLine = (needer: string, missing: OptionalPeer, peers: readonly OptionalPeer[]) => {
  const versions: Record<string, string> = { ...OPTIONAL_PEERS, ...NESTED_PEERS };
  return `[MissingPeerError: ${needer} needs ${missing}: npm install ${peers.map((p) => `${p}@${versions[p]}`).join(' ')}]`;
};

// Each probe is a Node process loading the sources through tsx: seconds apiece on a loaded machine.
describe('optional peers, missing', { timeout: 60_000 }, () => {
  const entries = [
    ['entry/http.ts', 'cairn-agents/http', FEATURE_PEERS.http],
    ['entry/mcp.ts', 'cairn-agents/mcp', FEATURE_PEERS.mcp],
    ['entry/a2a.ts', 'cairn-agents/a2a', FEATURE_PEERS.a2a],
  ] as const;
  for (const [entry, needer, peers] of entries)
    for (const peer of peers)
      it(`${entry} without ${peer} is one line naming what to install`, async () => {
        expect(await withoutPackages(entry, [peer])).toEqual({
          loaded: false,
          printed: installLine(needer, peer, peers),
        });
      });

  it("entry/a2a.ts loads without the SDK's gRPC peers; only cairnA2AGrpcService needs them, and says so in one line", async () => {
    const grpc = `m.cairnA2AGrpcService({ agents: [{ name: 'support' }], client: {}, grpcUrl: 'localhost:1' })`;
    const handler = `m.createCairnA2AHandler({ agents: [{ name: 'support' }], client: {} })`;
    expect(await withoutPackages('entry/a2a.ts', ['@bufbuild/protobuf'], handler)).toEqual({ loaded: true });
    for (const missing of FEATURE_PEERS.a2aGrpc)
      expect(await withoutPackages('entry/a2a.ts', [missing], grpc)).toEqual({
        loaded: true,
        printed: installLine('cairnA2AGrpcService (cairn-agents/a2a over gRPC)', missing, FEATURE_PEERS.a2aGrpc),
      });
  });

  it('the root, /workflow, /worker, /client and /testing entry points load with no optional peer installed', async () => {
    const all = [...Object.keys(OPTIONAL_PEERS), ...Object.keys(NESTED_PEERS)];
    for (const entry of [
      'entry/index.ts',
      'entry/workflow.ts',
      'entry/worker.ts',
      'entry/client.ts',
      'entry/testing.ts',
    ])
      expect(await withoutPackages(entry, all), entry).toEqual({ loaded: true });
  });
});
