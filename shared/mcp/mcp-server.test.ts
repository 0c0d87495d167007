import { describe, expect, it } from 'vitest';
import { DefinitionError } from '../failures/definition-error.js';
import { DEFAULT_MCP_TIMEOUT_MS, mcpServer, type McpServerConfig } from './mcp-server.js';

/** The DefinitionError `config` is refused with. */
function refusal(config: McpServerConfig): DefinitionError {
  try {
    mcpServer(config);
  } catch (err) {
    if (DefinitionError.isInstance(err)) return err;
    throw new Error(`not a DefinitionError: ${String(err)}`);
  }
  throw new Error('expected a refusal');
}

describe('mcpServer', () => {
  it('takes a snake_case name of at most 32 characters, and refuses any other with invalid_mcp_server', () => {
    expect(mcpServer({ name: 'a'.repeat(32), command: 'node' }).name).toHaveLength(32);
    expect(refusal({ name: 'a'.repeat(33), command: 'node' })).toMatchObject({
      code: 'invalid_mcp_server',
      message: expect.stringMatching(/at most 32 characters/),
    });
    expect(refusal({ name: 'Files', command: 'node' }).code).toBe('invalid_mcp_server');
    // A JavaScript caller that forgot the name gets the same refusal, not a TypeError.
    expect(refusal({ command: 'node' } as unknown as McpServerConfig)).toMatchObject({
      code: 'invalid_mcp_server',
      message: 'MCP server name undefined must be snake_case, at most 32 characters.',
    });
  });

  it('needs exactly one way to reach the server', () => {
    expect(refusal({ name: 'files' })).toMatchObject({
      code: 'invalid_mcp_server',
      message: expect.stringContaining('exactly one of `command` (stdio) or `url`'),
    });
    expect(refusal({ name: 'files', command: 'node', url: 'https://mcp.example.com' }).code).toBe('invalid_mcp_server');
  });

  it('takes an http or https URL only', () => {
    expect(mcpServer({ name: 'files', url: 'https://mcp.example.com/mcp' }).url).toBe('https://mcp.example.com/mcp');
    expect(mcpServer({ name: 'files', url: 'http://localhost:3000/mcp' }).url).toBe('http://localhost:3000/mcp');
    for (const url of [
      'ftp://mcp.example.com',
      'file:///tmp/x',
      ' https://mcp.example.com',
      'mcp.example.com/https://',
    ]) {
      expect(refusal({ name: 'files', url }), url).toMatchObject({
        code: 'invalid_mcp_server',
        message: 'MCP server files: `url` must be http(s).',
      });
    }
  });

  it("checks each tool override's review config, naming server and tool", () => {
    const err = refusal({ name: 'files', command: 'node', tools: { delete_file: { review: { allow: [] } } } });
    expect(err.code).toBe('invalid_review_config');
    expect(err.message).toContain('files/delete_file');
  });

  it('prefixes tools with the server name by default; an explicit prefix, even empty, wins', () => {
    expect(mcpServer({ name: 'files', command: 'node' })).toMatchObject({
      prefix: 'files_',
      timeoutMs: DEFAULT_MCP_TIMEOUT_MS,
    });
    expect(mcpServer({ name: 'files', command: 'node', prefix: 'fs_' }).prefix).toBe('fs_');
    expect(mcpServer({ name: 'files', command: 'node', prefix: '' }).prefix).toBe('');
    expect(mcpServer({ name: 'files', command: 'node', timeoutMs: 5_000 }).timeoutMs).toBe(5_000);
  });
});
