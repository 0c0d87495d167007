/**
 * One contract for every tool (issue #10), on a real dev server with real MCP servers over stdio:
 * a function tool, the tools of @modelcontextprotocol/server-everything and server-memory, a
 * fixture server for the failure modes, and another agent as a tool, in one run.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowHandle } from '@temporalio/client';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import type { RunEventItem } from '../client/run-events.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { scriptStep } from '../testing/script-steps.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import {
  answerClarificationUpdate,
  stateQuery,
  type AgentRunInput,
  type AgentRunResult,
  type RunState,
} from '../workflows/contract/index.js';
import { helperAgent } from './fixtures/agents.js';
import { mcpAgent } from './fixtures/mcp-agents.js';
import { recordHistory } from './support/histories.js';
import { events, waitFor } from './support/runs.js';
import { serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';

let w: TestWorker;
beforeAll(async () => void (w = await startTestWorker({ agents: [mcpAgent, helperAgent] })));
afterAll(() => w?.stop());

const start = (input: AgentRunInput): Promise<WorkflowHandle<(input: AgentRunInput) => Promise<AgentRunResult>>> =>
  w.client.workflow.start<(input: AgentRunInput) => Promise<AgentRunResult>>('mcpAgentRun', {
    taskQueue: w.taskQueue,
    workflowId: `mcp-${randomUUID()}`,
    args: [input],
    workflowExecutionTimeout: '2m',
  });

type ToolMessage = Extract<TranscriptMessage, { role: 'tool' }>;
const lastTool = (messages: readonly TranscriptMessage[], name: string) =>
  messages.findLast((m): m is ToolMessage => m.role === 'tool' && m.name === name)!.content as any;

/** `cairn watch <id> --json [--from N]`: one event per line, up to the answer or to where a person must act. */
function watchJson(workflowId: string, from?: number): Promise<RunEventItem[]> {
  const tsx = join(PACKAGE_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const args = [
    tsx,
    'cli/main.ts',
    'watch',
    workflowId,
    '--json',
    ...(from === undefined ? [] : ['--from', String(from)]),
  ];
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TEMPORAL_'))),
    TEMPORAL_ADDRESS: serverAddress(),
  };
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { cwd: PACKAGE_ROOT, env, timeout: 50_000 }, (error, stdout, stderr) =>
      // Exit 3: the watch stopped where the run waits on a person (docs/cli.md, "Exit codes").
      error && error.code !== 3
        ? reject(new Error(`cairn watch failed: ${stderr}`))
        : resolve(
            stdout
              .trim()
              .split('\n')
              .map((line) => JSON.parse(line)),
          ),
    ),
  );
}

describe('MCP servers and agents as tools, one contract', () => {
  it('validates MCP calls in the workflow, maps each failure, survives a server crash, and answers a child question through the parent', {
    timeout: 90_000,
  }, async () => {
    const { model, scripted } = w.script([
      scriptStep.call('everything_get_sum', { a: 'one', b: 2 }), // refused in the workflow: no activity
      scriptStep.call('everything_get_sum', { a: 1, b: 2 }),
      scriptStep.calls([
        { name: 'lookup_order', arguments: { orderId: 'A-1001' } },
        { name: 'fixture_count', arguments: {} },
      ]),
      scriptStep.call('fixture_strict', { amount: -1 }), // JSON-RPC invalid params from the server
      scriptStep.call('fixture_strict', { amount: 5 }),
      scriptStep.call('everything_gzip_file_as_resource', { name: 'x.gz', data: 'http://127.0.0.1:1/nothing' }), // isError
      scriptStep.call('fixture_crash', {}), // the server process dies mid-call
      scriptStep.calls([
        { name: 'fixture_count', arguments: {} }, // a new server process
        {
          name: 'memory_create_entities',
          arguments: { entities: [{ name: 'A-1', entityType: 'order', observations: ['late'] }] },
        },
      ]),
      scriptStep.call('memory_read_graph', {}),
      scriptStep.call('ask_helper', { task: 'Redeliver A-1.' }),
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }), // the child asks which window
      scriptStep.react(({ messages }) => {
        const said = messages.findLast((m) => m.role === 'user')!.content;
        return scriptStep.call('schedule_redelivery', {
          orderId: 'A-1',
          window: String(said).includes('afternoon') ? 'afternoon' : 'morning',
        });
      }),
      scriptStep.text('Redelivery scheduled.'),
      scriptStep.text('All done.'),
    ]);
    const handle = await start({ agent: 'mcp', prompt: 'Use your tools.', model });

    const asked = await waitFor(async () => {
      const s: RunState = await handle.query(stateQuery);
      return s.phase === 'awaiting_clarification' ? s : undefined;
    }, 'the child question in the parent');
    expect(asked.clarification).toMatchObject({ child: { agent: 'helper', workflowId: `${handle.workflowId}/10.1` } });
    await handle.executeUpdate(answerClarificationUpdate, {
      args: [{ id: asked.clarification!.id, answer: 'afternoon' }],
    });
    expect(await handle.result()).toMatchObject({ answer: 'All done.', reason: null });

    const requests = scripted.requests;
    // The model is offered the MCP tools with the servers' own schemas.
    expect(requests[0]!.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'lookup_order',
        'ask_helper',
        'everything_get_sum',
        'memory_read_graph',
        'fixture_crash',
      ]),
    );
    expect(requests[0]!.tools.find((t) => t.name === 'everything_get_sum')!.args_schema).toMatchObject({
      required: ['a', 'b'],
    });
    // 1. An invalid MCP call: refused with the schema's fields and an example, and never scheduled.
    expect(lastTool(requests[1]!.messages, 'everything_get_sum')).toMatchObject({
      error: { code: 'invalid_arguments' },
      hint: { restrictToTool: true, exampleInput: { a: 0, b: 0 }, issues: [expect.objectContaining({ path: 'a' })] },
    });
    const history = await events(handle);
    const toolIds = history.flatMap((e) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool'
        ? [e.activityTaskScheduledEventAttributes.activityId!]
        : [],
    );
    expect(toolIds.some((id) => id.startsWith('tool:1.1:'))).toBe(false);
    expect(lastTool(requests[2]!.messages, 'everything_get_sum')).toBe('The sum of 1 and 2 is 3.');
    const firstCount = lastTool(requests[3]!.messages, 'fixture_count') as { pid: number; calls: number };
    // 2. JSON-RPC invalid params → invalid_arguments; isError → the server's text.
    expect(lastTool(requests[4]!.messages, 'fixture_strict')).toMatchObject({
      error: { code: 'invalid_arguments', message: expect.stringMatching(/amount must be positive/) },
    });
    expect(lastTool(requests[6]!.messages, 'everything_gzip_file_as_resource')).toMatchObject({
      error: { code: 'semantic_error', message: expect.stringMatching(/fetch failed/) },
    });
    // 3. The server crashed mid-call: tool_unavailable, the tool is disabled and the model told.
    expect(lastTool(requests[7]!.messages, 'fixture_crash')).toMatchObject({ error: { code: 'tool_unavailable' } });
    expect(requests[7]!.tools.map((t) => t.name)).not.toContain('fixture_crash');
    expect(JSON.stringify(requests[7]!.messages.slice(-2))).toMatch(/fixture_crash is unavailable/);
    // The next call to that server starts it again; a second real server works beside it.
    const secondCount = lastTool(requests[8]!.messages, 'fixture_count') as { pid: number; calls: number };
    expect(secondCount.pid).not.toBe(firstCount.pid);
    expect(secondCount.calls).toBe(1);
    expect(JSON.stringify(lastTool(requests[9]!.messages, 'memory_read_graph'))).toMatch(/A-1/);
    // 4. The child's answer is the agent tool's result; its ToolResult links the child run.
    expect(lastTool(requests.at(-1)!.messages, 'ask_helper')).toEqual({ answer: 'Redelivery scheduled.' });

    // The live stream tells it all, tool ends with structured errors and the child's run link.
    const streamed = await new AgentRunHandle(w.client, handle.workflowId).events({ from: 0 });
    const seen: RunEventItem[] = [];
    for await (const event of streamed) seen.push(event);
    const ends = seen.filter((e) => e.type === 'tool_end');
    expect(ends.find((e) => e.toolCallId === '1.1')!.result).toMatchObject({
      status: 'error',
      error: { code: 'invalid_arguments' },
    });
    expect(ends.find((e) => e.name === 'ask_helper')!.result).toMatchObject({
      status: 'ok',
      runLink: { workflowId: `${handle.workflowId}/10.1` },
      childrenCount: 1,
    });
    // `cairn watch --json` prints the same events in order, and resumes from an offset.
    const watched = await watchJson(handle.workflowId);
    expect(watched.map((e) => e.offset)).toEqual(seen.map((e) => e.offset));
    const status = (e: RunEventItem) => (e as unknown as { result: { status: string } }).result.status;
    expect(watched.filter((e) => e.type === 'tool_end').map(status)).toEqual(ends.map(status));
    expect(await watchJson(handle.workflowId, 7)).toEqual(watched.slice(7));

    await recordHistory(handle, 'mcp-tools-run');
    await recordHistory(w.client.workflow.getHandle(`${handle.workflowId}/10.1`), 'mcp-tools-child');
  });

  it('a call that outlives the server timeout is a timeout, backed off without a model turn', {
    timeout: 60_000,
  }, async () => {
    const { model, scripted } = w.script([scriptStep.call('fixture_hang', {}), scriptStep.text('It never answered.')]);
    const handle = await start({ agent: 'mcp', prompt: 'Hang.', model, policy: { maxModelRetries: 0 } });
    expect(await handle.result()).toMatchObject({ answer: 'It never answered.' });
    const hung = lastTool(scripted.requests[1]!.messages, 'fixture_hang');
    expect(hung, JSON.stringify(hung)).toMatchObject({ error: { code: 'timeout' } });
    const history = await events(handle);
    expect(history.filter((e) => e.timerStartedEventAttributes).length).toBeGreaterThan(0); // the back-off
    expect(
      history.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel'),
    ).toHaveLength(2);
  });

  it('one connection per server per worker, reused across runs; the listing is recorded once per chain', async () => {
    const counts: number[] = [];
    for (let i = 0; i < 2; i++) {
      const { model, scripted } = w.script([scriptStep.call('fixture_count', {}), scriptStep.text('Counted.')]);
      const handle = await start({ agent: 'mcp', prompt: 'Count.', model, continueAsNewAfterTurns: 1 });
      await handle.result();
      counts.push((lastTool(scripted.requests[1]!.messages, 'fixture_count') as { pid: number }).pid);
      // Walk the chain back from its last run: only the first run lists the servers.
      const listedPerRun: number[] = [];
      for (let runId: string | undefined = (await handle.describe()).runId; runId; ) {
        const history = await events(w.client.workflow.getHandle(handle.workflowId, runId));
        listedPerRun.unshift(
          history.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'listMcpTools').length,
        );
        runId = history[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
      }
      expect(listedPerRun.length).toBeGreaterThan(1);
      expect(listedPerRun).toEqual([1, ...listedPerRun.slice(1).map(() => 0)]);
    }
    expect(counts[0]).toBe(counts[1]);
  });
});
