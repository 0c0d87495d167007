import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  MissingPeerError,
  NESTED_PEERS,
  OPTIONAL_PEERS,
  requirePeers,
  requirePeersSync,
  type OptionalPeer,
} from './optional-peers.js';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

const notFound = (spec: string) =>
  Object.assign(
    new Error(
      `Cannot find package '${spec}' imported from /app/node_modules/cairn-agents/dist/servers/http/agui-events.js`,
    ),
    { code: 'ERR_MODULE_NOT_FOUND' },
  );

describe('optional peers', () => {
  it('are optional peers of package.json, tested at the version the install line names, and no dependency', () => {
    for (const [name, version] of Object.entries(OPTIONAL_PEERS)) {
      expect(manifest.peerDependencies[name], name).toBeDefined();
      expect(manifest.peerDependenciesMeta[name]?.optional, name).toBe(true);
      expect(manifest.devDependencies[name]?.replace(/^\^/, ''), name).toBe(version);
      expect(manifest.dependencies?.[name], name).toBeUndefined();
    }
  });

  it("that a peer needs (the A2A SDK's gRPC binding) are named at the version installed here, which the peer accepts", () => {
    const installed = (name: string) =>
      JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as {
        version: string;
        peerDependencies?: Record<string, string>;
      };
    const a2aPeers = installed('@a2a-js/sdk').peerDependencies ?? {};
    for (const [name, version] of Object.entries(NESTED_PEERS)) {
      expect(installed(name).version, name).toBe(version);
      expect(a2aPeers[name]?.replace(/^\^(\d+)\..*$/, '$1'), name).toBe(version.split('.')[0]);
    }
  });

  it('load what is there', async () => {
    expect(await requirePeers('cairn-agents/a2a', ['@a2a-js/sdk'], async () => 42)).toBe(42);
  });

  it('say in one line which one is missing and the command that installs what the feature needs', async () => {
    const peers: OptionalPeer[] = ['@ag-ui/core', '@ag-ui/encoder', 'ai'];
    const error = await requirePeers('cairn-agents/http', peers, () => Promise.reject(notFound('@ag-ui/core'))).catch(
      (e: unknown) => e,
    );
    expect(MissingPeerError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      'cairn-agents/http needs @ag-ui/core: npm install @ag-ui/core@1.0.0 @ag-ui/encoder@1.0.0 ai@7.0.173',
    );
    expect(error).toMatchObject({ code: 'missing_peer', peer: '@ag-ui/core' });
    // As Node prints it uncaught: the one line, no frames, no cause.
    expect(inspect(error)).toBe(`[MissingPeerError: ${(error as Error).message}]`);
  });

  it('know a subpath import of a peer', async () => {
    const error = await requirePeers('MCP tools', ['@modelcontextprotocol/sdk'], () =>
      Promise.reject(notFound('@modelcontextprotocol/sdk/client/index.js')),
    ).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'MCP tools needs @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk@1.32.2',
    );
  });

  it('let other failures through as they are', async () => {
    const other = notFound('something-else');
    await expect(requirePeers('cairn-agents/a2a', ['@a2a-js/sdk'], () => Promise.reject(other))).rejects.toBe(other);
    const broken = new TypeError('boom');
    await expect(requirePeers('cairn-agents/a2a', ['@a2a-js/sdk'], () => Promise.reject(broken))).rejects.toBe(broken);
  });

  it('are recognised by their marker across copies of the package, and nothing else is', async () => {
    const error = await requirePeers('MCP tools', ['@modelcontextprotocol/sdk'], () =>
      Promise.reject(notFound('@modelcontextprotocol/sdk')),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'MissingPeerError', install: ['@modelcontextprotocol/sdk'] });
    expect((error as Error).stack).toBe(`MissingPeerError: ${(error as Error).message}`);
    const copy = { [Symbol.for('cairn.MissingPeerError')]: true };
    expect(MissingPeerError.isInstance(copy)).toBe(true);
    for (const other of [null, undefined, 'missing_peer', {}, new Error('x'), notFound('ai')])
      expect(MissingPeerError.isInstance(other)).toBe(false);
  });

  it('keep a stack that tools may still replace (source maps, test runners)', () => {
    const error = new MissingPeerError('cairn-agents/a2a', '@a2a-js/sdk');
    expect(error.install).toStrictEqual(['@a2a-js/sdk']);
    error.stack = 'rewritten';
    expect(error.stack).toBe('rewritten');
    Object.defineProperty(error, 'stack', { value: 'redefined' });
    Object.defineProperty(error, 'name', { value: 'Renamed' });
    expect([error.stack, error.name]).toStrictEqual(['redefined', 'Renamed']);
  });

  it('know a missing package of a synchronous require, and let anything else through', () => {
    const cjsNotFound = Object.assign(new Error("Cannot find module '@a2a-js/sdk'"), { code: 'MODULE_NOT_FOUND' });
    expect(requirePeersSync('cairn-agents/a2a', ['@a2a-js/sdk'], () => 42)).toBe(42);
    expect(() =>
      requirePeersSync('cairn-agents/a2a', ['@a2a-js/sdk'], () => {
        throw cjsNotFound;
      }),
    ).toThrow('cairn-agents/a2a needs @a2a-js/sdk: npm install @a2a-js/sdk@1.3.0');
    // The same message with another code is not a missing package.
    const other = Object.assign(new Error("Cannot find module '@a2a-js/sdk'"), { code: 'EACCES' });
    for (const thrown of [other, null, undefined]) {
      let caught: unknown = 'nothing';
      try {
        requirePeersSync('cairn-agents/a2a', ['@a2a-js/sdk'], () => {
          throw thrown;
        });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBe(thrown);
    }
  });
});
