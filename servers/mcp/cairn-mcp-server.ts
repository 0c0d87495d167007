/**
 * createCairnMcpServer: each served agent is an MCP tool, for IDE assistants and desktop clients
 * that speak MCP. `tools/call` starts a run (`prompt`) or continues one (`runId`, with an `answer`
 * or `decisions`), and waits until the run needs someone or finishes. While it waits for a person:
 * to a client that declared elicitation, the question (its schema) or the held call (its allowed
 * decisions) is an `elicitation/create`, and the reply goes to the run — checked by the run's own
 * validators, bound to the arguments shown; to any other client (or one that declines), the tool's
 * result says what is asked and how to answer: call the tool again with the run id and the answer.
 * A cancelled request (`notifications/cancelled`, the caller's abort) cancels the run gracefully.
 * A caller of a tenant (`authorize` returned `{ tenant, user }`) starts the tenant's runs and reaches
 * only them: another tenant's run id is `unknown_run`, word for word as one that never was.
 * Stateless about runs: every call reads its run from Temporal. Node-only (client side).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { CreateTaskRequestHandlerExtra } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import {
  ElicitResultSchema,
  ErrorCode,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Agent } from '../../shared/agent/define-agent.js';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import type { CairnClient, StartRunOptions } from '../../client/cairn-client.js';
import type { Authorize, Caller } from '../http/authorize.js';
import type { MaxRunsPerTenant } from '../http/tenant-limit.js';
import { RunInputError, runInputError, type PendingInput, type RunReply } from '../a2a/run-input.js';
import { isTerminal } from '../a2a/run-status.js';
import { refusedCall, result, statusOf } from './run-result.js';
import { RunTaskStore, TASK_POLL_MS } from './run-task-store.js';
import {
  applyAuthorized,
  begin,
  CANCEL_REASON,
  describeAgent,
  inputShape,
  outputShape,
  settle,
  waitIdle,
  type CallArgs,
} from './run-call.js';
import { formOf, replyOf, takesForms } from './run-input-form.js';

export interface CairnMcpServerOptions {
  readonly client: CairnClient;
  /** The agents served, one tool each (named as the agent). */
  readonly agents: readonly Agent[];
  /** What each tool says it does, by agent name. Default: the agent's instructions and tools. */
  readonly describe?: Readonly<Record<string, string>>;
  /**
   * Asked before every act, with the request's headers (over HTTP) — the HTTP handler's hook
   * (`bearerToken`). Return `{ tenant, user }` to scope the caller to the tenant's runs, as the HTTP
   * handler does. Over stdio there is no request: not asked. Default: everything is allowed.
   */
  readonly authorize?: Authorize;
  /** How long one call waits for the run to need someone or finish before it returns "still working" (call again with the run id). Default 45,000 ms. */
  readonly maxWaitMs?: number;
  /** How long an elicitation waits for the person. Default 10 minutes (then the result says what is asked). */
  readonly elicitationTimeoutMs?: number;
  /** Workflow ids of runs started here: this prefix, the agent's name, a dash and a UUID. Default `cairn-mcp-`. */
  readonly runPrefix?: string;
  /** More start options for the runs calls start (model, policy, Temporal options). */
  readonly startOptions?: (run: { readonly agent: string; readonly workflowId: string }) => Partial<StartRunOptions>;
  /**
   * Runs in flight per tenant, as the HTTP handler's option (fleet-wide, through visibility): a call
   * of a tenant at its limit that would start a run gets `isError`, `tenant_runs_limit: …`. A number,
   * or per tenant. Default: none.
   */
  readonly maxRunsPerTenant?: MaxRunsPerTenant;
  /**
   * MCP 2026-07-28 only: signs the `requestState` of an `input_required` result (HMAC, at least 32
   * bytes; every server process needs the same key) so that a retry carries only state this server
   * made, for at most `elicitationTimeoutMs` and a minute. Without it the state is plain JSON naming
   * the run, which a caller could name as `runId` anyway: `authorize` is asked on every round.
   */
  readonly requestStateKey?: string | Uint8Array;
  /** The server's name and version in `initialize`. Default `cairn` and the package version. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The most elicitations one call makes before it hands what is asked back in its result. */
const MAX_ELICITATIONS = 16;
/** How often a call that asked for progress is told the run still works. */
const PROGRESS_MS = 5_000;

/**
 * A new MCP server with one tool per agent (connect it to a transport: stdio, streamable HTTP).
 * `session.tenant`: the tenant of the session it serves (the HTTP handler's, from `authorize` at
 * initialize), whose runs its MCP tasks reach.
 */
export function createCairnMcpServer(
  options: CairnMcpServerOptions,
  session: { readonly tenant?: string } = {},
): McpServer {
  const server = new McpServer(options.serverInfo ?? { name: 'cairn', version: '0.2.0' }, {
    capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore: new RunTaskStore({
      client: options.client,
      prefix: options.runPrefix ?? 'cairn-mcp-',
      tenant: session.tenant,
      cancelReason: CANCEL_REASON,
    }),
    // Elicitations of a task wait here until the client asks for the task's result (tasks/result).
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  });
  for (const agent of options.agents) {
    server.experimental.tasks.registerToolTask(
      agent.name,
      {
        title: agent.name,
        description: options.describe?.[agent.name] ?? describeAgent(agent),
        inputSchema: inputShape,
        outputSchema: outputShape,
        annotations: { openWorldHint: true },
        execution: { taskSupport: 'optional' },
      },
      {
        createTask: (args, extra) => startTask(server, options, agent.name, args, extra),
        getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
        getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
      },
    );
  }
  answerCallsWithoutTasks(server, options);
  return server;
}

/**
 * A call that asks for no task is answered in the call, as to clients without tasks: the run is
 * followed, the person asked through elicitation, and what is still asked comes back in the result.
 * (For a task-capable tool the SDK would create a task and poll it to the end: a run waiting for a
 * person would never end.) The SDK has no hook for it; its method is replaced, checked here.
 */
function answerCallsWithoutTasks(server: McpServer, options: CairnMcpServerOptions): void {
  const internals = server as unknown as {
    handleAutomaticTaskPolling?: unknown;
    validateToolInput(tool: unknown, args: unknown, name: string): Promise<CallArgs>;
  };
  if (typeof internals.handleAutomaticTaskPolling !== 'function' || typeof internals.validateToolInput !== 'function')
    throw new Error(
      'This @modelcontextprotocol/sdk has no handleAutomaticTaskPolling: use the 1.x line Cairn is tested with (^1.32).',
    );
  internals.handleAutomaticTaskPolling = async (tool: unknown, request: CallToolRequest, extra: Extra) =>
    callAgent(
      server,
      options,
      request.params.name,
      await internals.validateToolInput(tool, request.params.arguments, request.params.name),
      extra,
    );
}

/** A call that asks for a task: the run starts (or takes the answer), the task is its run, followed here. */
async function startTask(
  server: McpServer,
  options: CairnMcpServerOptions,
  agent: string,
  args: CallArgs,
  extra: CreateTaskRequestHandlerExtra,
): Promise<CreateTaskResult> {
  let begun: { readonly run: AgentRunHandle; readonly caller: Caller };
  try {
    begun = await begin(options, agent, args, requestOf(extra));
  } catch (error) {
    const refused = runInputError(error, args.runId ?? '');
    if (RunInputError.isInstance(refused))
      throw new McpError(ErrorCode.InvalidParams, `${refused.code}: ${refused.message}`);
    throw error;
  }
  const task = await extra.taskStore.createTask({
    ttl: extra.taskRequestedTtl ?? null,
    pollInterval: TASK_POLL_MS,
    context: { workflowId: begun.run.workflowId },
  });
  void followTask(server, options, agent, begun.run, begun.caller, extra, task.taskId);
  return { task };
}

/**
 * While the task's run waits for a person, asks them through elicitation queued for the task (the
 * client receives it when it asks for the task's result) and gives the run the reply; stops when the
 * run ends, the client cannot elicit or declines (the task then stays input_required: its status
 * message says what is asked, and a call with the runId answers), or the session closes.
 */
async function followTask(
  server: McpServer,
  options: CairnMcpServerOptions,
  agent: string,
  run: AgentRunHandle,
  caller: Caller,
  extra: Extra,
  taskId: string,
): Promise<void> {
  const ask = (params: ElicitRequest['params']) =>
    server.server
      .request({ method: 'elicitation/create', params }, ElicitResultSchema, {
        relatedTask: { taskId },
        timeout: options.elicitationTimeoutMs ?? 600_000,
      })
      .catch(() => undefined);
  const never = new AbortController().signal;
  try {
    for (let elicited = 0; server.isConnected() && elicited < MAX_ELICITATIONS; ) {
      await waitIdle(run, never, Date.now() + 60_000);
      const status = await statusOf(run, agent, caller);
      if (isTerminal(status.status)) return;
      if (status.status === 'working') {
        await sleep(250);
        continue;
      }
      if (!canElicit(server)) return;
      elicited++;
      const reply = await elicit(status.pending!, ask);
      if (!reply) return;
      await applyAuthorized(options, requestOf(extra), run, reply);
    }
  } catch {
    // The run is gone or the session closed: the task's status says where the run stands.
  }
}

async function callAgent(
  server: McpServer,
  options: CairnMcpServerOptions,
  agent: string,
  args: CallArgs,
  extra: Extra,
): Promise<CallToolResult> {
  try {
    const { run, caller, read } = await begin(options, agent, args, requestOf(extra));
    // No worker answered for the run: following it would wait for one. Say where it stands, now.
    if (read?.state?.stale) return result(read);
    return await follow(server, options, agent, run, caller, extra, args.runId === undefined);
  } catch (error) {
    return refusedCall(error, args.runId);
  }
}

/** Waits for the run, asking the person through elicitation where the client can, and says where it stands. */
async function follow(
  server: McpServer,
  options: CairnMcpServerOptions,
  agent: string,
  run: AgentRunHandle,
  caller: Caller,
  extra: Extra,
  started: boolean,
): Promise<CallToolResult> {
  const until = Date.now() + (options.maxWaitMs ?? 45_000);
  // The client's cancel of the call that started the run cancels the run. The SDK aborts the same
  // signal when a session closes (eviction, idle sweep, a redeploy), and the transport is gone by the
  // next turn then: a closed session leaves its runs alone, as does a call that only continued one.
  const onAbort = () => {
    if (started) setImmediate(() => server.isConnected() && void run.cancel(CANCEL_REASON).catch(() => undefined));
  };
  extra.signal.addEventListener('abort', onAbort, { once: true });
  // A client that asked for progress hears from a long run, so its request timeout can be reset.
  const progressToken = extra._meta?.progressToken;
  let beats = 0;
  const progress =
    progressToken === undefined
      ? undefined
      : setInterval(() => {
          void extra
            .sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress: ++beats, message: `run ${run.workflowId} is working` },
            })
            .catch(() => undefined);
        }, PROGRESS_MS);
  try {
    let elicited = 0;
    for (;;) {
      const status = await settle(run, agent, caller, extra.signal, until);
      if (status.status !== 'input_required') return result(status);
      if (!canElicit(server) || elicited >= MAX_ELICITATIONS) return result(status);
      elicited++;
      const reply = await elicit(status.pending!, (params) =>
        extra
          .sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, {
            timeout: options.elicitationTimeoutMs ?? 600_000,
            signal: extra.signal,
          })
          .catch((error: unknown) => {
            if (extra.signal.aborted) throw error;
            return undefined; // no answer in time, or the client could not ask: the result says what is asked
          }),
      );
      if (!reply) return result(status);
      await applyAuthorized(options, requestOf(extra), run, reply);
    }
  } finally {
    extra.signal.removeEventListener('abort', onAbort);
    if (progress) clearInterval(progress);
  }
}

/** Asks the person for the question's answer or the first held call's decision; undefined when they decline. */
async function elicit(
  pending: PendingInput,
  ask: (params: ElicitRequest['params']) => Promise<ElicitResult | undefined>,
): Promise<RunReply | undefined> {
  const asked = formOf(pending);
  if (!asked) return undefined;
  const answer = await ask(asked.form as ElicitRequest['params']);
  if (answer?.action !== 'accept' || !answer.content) return undefined;
  return replyOf(pending, asked.subject, answer.content);
}

/** Whether the client takes form elicitation: declared as `form`, or as an empty object (the spec's default). */
function canElicit(server: McpServer): boolean {
  return takesForms(
    server.server.getClientCapabilities()?.elicitation as { form?: unknown; url?: unknown } | undefined,
  );
}

/** The HTTP request the call came in (its headers, for `authorize`); none over stdio. */
function requestOf(extra: Extra): Request | undefined {
  if (!extra.requestInfo) return undefined;
  const headers = new Headers();
  for (const [key, value] of Object.entries(extra.requestInfo.headers ?? {})) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else if (typeof value === 'string') headers.set(key, value);
  }
  return new Request(extra.requestInfo.url ?? 'http://mcp.invalid/', { headers });
}
