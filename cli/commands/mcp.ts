/**
 * `cairn mcp`: the agents of cairn.config.ts as MCP tools over stdio, for IDE assistants and
 * desktop clients (Claude Desktop, Cursor, VS Code…) that launch an MCP server as a command, in MCP
 * 2025-11-25 or, where `@modelcontextprotocol/server` is installed, 2026-07-28 (the client's opening
 * message decides: servers/mcp/stdio-mcp-server.ts). stdout carries MCP's JSON-RPC only; every line
 * for people goes to stderr. Runs until stdin closes.
 */
import { DEFAULT_TASK_QUEUE } from '../../runtime/temporal-target.js';
import { parseCommandLine, type Command } from '../command.js';
import { CliError } from '../errors.js';
import { FEATURE_PEERS, requirePeers } from '../../shared/optional-peers.js';

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Serve your agents as MCP tools over stdio (an MCP client launches it; see docs/mcp-server.md)',
  help: `Usage: cairn mcp [--task-queue <queue>] [--config <file>]

Serves each agent of cairn.config.ts as one MCP tool over stdio (docs/mcp-server.md): a call
with { prompt } starts a run, { runId, answer | decisions } continues one. A run's question or
held tool call is asked through MCP elicitation (2025-11-25) or an input_required result
(2026-07-28, with @modelcontextprotocol/server installed) when the client supports it; otherwise
the tool's result says what is asked and how to answer. A cancelled call cancels its run. Runs live
on the Temporal server the environment names, so they outlive this process.

Options:
  --task-queue <queue>  The task queue runs are started on (default: the config's, else ${DEFAULT_TASK_QUEUE})
  --config <file>       The project config (default: cairn.config.ts here or above)
  -h, --help            Show this help

In an MCP client's configuration: { "command": "npx", "args": ["cairn", "mcp"], "cwd": "<your project>" }.`,

  async run(argv, io) {
    const { values } = parseCommandLine('mcp', argv, {
      options: { 'task-queue': { type: 'string' }, config: { type: 'string' } },
      required: [],
    });
    const { connectFromEnvironment, loadCliProject } = await import('../worker-process.js');
    const { dataConverterFromEnvironment } = await import('../../runtime/payload-codec.js');
    const { Client } = await import('@temporalio/client');
    const { CairnClient } = await import('../../client/cairn-client.js');
    const { serveCairnMcpStdio } = await requirePeers(
      'cairn mcp',
      FEATURE_PEERS.mcp,
      () => import('../../servers/mcp/stdio-mcp-server.js'),
    );
    const project = await loadCliProject(values.config, { deps: false });
    if (project.agents.length === 0) throw new CliError('The config names no agents to serve.');
    const taskQueue = values['task-queue'] ?? project.taskQueue ?? DEFAULT_TASK_QUEUE;
    const connected = await connectFromEnvironment().catch((error) =>
      Promise.reject(new CliError(`Cannot connect to the Temporal server: ${(error as Error).message}`)),
    );
    const dataConverter = dataConverterFromEnvironment(process.env);
    const temporal = dataConverter
      ? new Client({ connection: connected.client.connection, namespace: connected.namespace, dataConverter })
      : connected.client;
    let transportClosed = () => {};
    const closed = new Promise<void>((resolve) => {
      transportClosed = resolve;
      process.stdin.once('end', resolve);
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    const server = await serveCairnMcpStdio(
      { client: new CairnClient({ client: temporal, taskQueue }), agents: project.agents },
      () => transportClosed(),
      (error) => io.error(`cairn mcp: ${(error as Error).message}`),
    );
    io.error(
      `cairn mcp: ${project.agents.map((a) => a.name).join(', ')} as MCP tools over stdio, runs on task queue "${taskQueue}".`,
    );
    await closed;
    await server.close().catch(() => undefined);
    await connected.close();
    return 0;
  },
};
