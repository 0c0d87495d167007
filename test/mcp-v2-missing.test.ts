/**
 * The 2026-07-28 packages are optional: with `@modelcontextprotocol/server` not installed, the MCP
 * endpoint speaks 2025-11-25 only — a 2026-07-28 request gets the 2025-11-25 answer, `onError` is
 * told once, in one line, what to install, and a negotiating v2 client falls back to 2025-11-25;
 * with `@modelcontextprotocol/client` not installed, a worker's MCP tools connect in 2025-11-25 and
 * say so. Each probe is a Node process of its own (test/fixtures/mcp-v2-missing-probe.ts). Needs no Temporal.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../runtime/package-root.js';

async function probe(hidden: string): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      pathToFileURL(join(PACKAGE_ROOT, 'test/fixtures/hide-packages.mjs')).href,
      join(PACKAGE_ROOT, 'test/fixtures/mcp-v2-missing-probe.ts'),
    ],
    { cwd: PACKAGE_ROOT, env: { ...process.env, HIDE: hidden } },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

describe('MCP 2026-07-28 packages missing', { timeout: 60_000 }, () => {
  it('without @modelcontextprotocol/server: 2025-11-25 answers, one line says what to install, a negotiating client falls back', async () => {
    expect(await probe('@modelcontextprotocol/server')).toEqual({
      status: [400, 400],
      era: 'legacy',
      tools: ['test'],
      told: [
        'MCP 2026-07-28 (createCairnMcpHandler) needs @modelcontextprotocol/server: npm install @modelcontextprotocol/server@2.4.0',
      ],
    });
  });

  it('without @modelcontextprotocol/client: MCP tools connect in 2025-11-25 and record it', async () => {
    expect(await probe('@modelcontextprotocol/client')).toEqual({
      listing: { revision: '2025-11-25', tools: ['test'] },
      told: [],
    });
  });
});
