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
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
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
import type { JsonObject, JsonValue } from '../../shared/json/json.js';
import { carriedFields, REVIEW_DECISIONS } from '../../shared/human-input/review-decision.js';
import { budgetDecisionSchema } from '../../shared/human-input/budget-decision.js';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import { INTERACTIVE_PRIORITY, type CairnClient, type StartRunOptions } from '../../client/cairn-client.js';
import { checkAuthorized, type Authorize, type Caller, type HttpAction } from '../http/authorize.js';
import { HttpError } from '../http/http-error.js';
import { withinTenantLimit, type MaxRunsPerTenant } from '../http/tenant-limit.js';
import {
  applyReplies,
  parseReply,
  replyAction,
  RunInputError,
  runInputError,
  type HeldCall,
  type PendingInput,
  type PendingQuestion,
  type RunReply,
} from '../a2a/run-input.js';
import { isTerminal, type RunStatus } from '../a2a/run-status.js';
import { result, statusOf } from './run-result.js';
import { RunTaskStore, TASK_POLL_MS } from './run-task-store.js';

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
  /** The server's name and version in `initialize`. Default `cairn` and the package version. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const CANCEL_REASON = 'cancelled over MCP';
/** The most elicitations one call makes before it hands what is asked back in its result. */
const MAX_ELICITATIONS = 16;
/** How often a call that asked for progress is told the run still works. */
const PROGRESS_MS = 5_000;

const decisionSchema = z.object({
  toolCallId: z.string().min(1).max(500),
  argsHash: z.string().min(1).max(200),
  decision: z.enum(REVIEW_DECISIONS).describe('What to do with the held call.'),
  // What each decision carries beside it (shared/human-input/review-decision.ts); the run's parser checks the whole.
  ...Object.fromEntries(
    carriedFields().map((c) => [
      c.field,
      (c.value === 'text' ? z.string() : z.unknown()).optional().describe(`${c.what} (${c.by})`),
    ]),
  ),
});

const inputShape = {
  prompt: z
    .string()
    .trim()
    .min(1)
    .max(40_000)
    .optional()
    .describe('What the agent should do: starts a new run. Leave out to continue a run (runId).'),
  runId: z.string().min(1).max(500).optional().describe("The run to continue, from an earlier result's runId."),
  answer: z
    .union([z.string().min(1), z.record(z.string(), z.unknown())])
    .optional()
    .describe("The answer to the run's pending question: text, or an object of the fields its schema names."),
  decisions: z
    .array(decisionSchema)
    .max(32)
    .optional()
    .describe('Decisions on held tool calls: each names the toolCallId and argsHash the result showed.'),
  budget: budgetDecisionSchema
    .optional()
    .describe("A decision on the run's spent budget: extend it by tokens and/or costUsd, or stop the run."),
};

const outputShape = {
  runId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'canceled']),
  answer: z.string().optional(),
  reason: z.string().optional(),
  question: z.record(z.string(), z.unknown()).nullable().optional(),
  reviews: z.array(z.record(z.string(), z.unknown())).optional(),
  budget: z.record(z.string(), z.unknown()).nullable().optional(),
  howToAnswer: z.string().optional(),
  /** Read without the run's worker (none answered in time): what Temporal keeps, which may be behind. */
  stale: z.boolean().optional(),
};

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
    begun = await begin(options, agent, args, extra);
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
      await applyAuthorized(options, extra, run, reply);
    }
  } catch {
    // The run is gone or the session closed: the task's status says where the run stands.
  }
}

function describeAgent(agent: Agent): string {
  const flat = agent.instructions.replace(/\s+/g, ' ').trim();
  const tools = agent.tools.map((t) => t.name).join(', ');
  return `${flat.length > 400 ? `${flat.slice(0, 399)}…` : flat}${tools ? ` (tools: ${tools})` : ''} A durable Cairn run: give a prompt to start; when the result's status is input_required, call again with its runId and an answer or decisions.`;
}

type CallArgs = {
  prompt?: string | undefined;
  runId?: string | undefined;
  answer?: string | Record<string, unknown> | undefined;
  decisions?: z.infer<typeof decisionSchema>[] | undefined;
  budget?: z.infer<typeof inputShape.budget> | undefined;
};

async function callAgent(
  server: McpServer,
  options: CairnMcpServerOptions,
  agent: string,
  args: CallArgs,
  extra: Extra,
): Promise<CallToolResult> {
  try {
    const { run, caller, read } = await begin(options, agent, args, extra);
    // No worker answered for the run: following it would wait for one. Say where it stands, now.
    if (read?.state?.stale) return result(read);
    return await follow(server, options, agent, run, caller, extra, args.runId === undefined);
  } catch (error) {
    const refused = runInputError(error, args.runId ?? '');
    if (RunInputError.isInstance(refused)) return failure(refused.code, refused.message, args.runId);
    if (HttpError.isInstance(error) && error.status === 429) return failure(error.code, error.message, undefined);
    throw error;
  }
}

/** Starts the run, or delivers the answer and decisions to the run named. */
async function begin(
  options: CairnMcpServerOptions,
  agent: string,
  args: CallArgs,
  extra: Extra,
): Promise<{ readonly run: AgentRunHandle; readonly caller: Caller; readonly read?: RunStatus }> {
  if (args.runId === undefined) {
    if (args.prompt === undefined)
      throw new RunInputError('invalid_input', 'Give a prompt to start a run, or the runId of a run to continue.');
    if (args.answer !== undefined || args.decisions !== undefined || args.budget !== undefined)
      throw new RunInputError('invalid_input', 'An answer or decisions go to a run: give its runId.');
    const workflowId = `${options.runPrefix ?? 'cairn-mcp-'}${agent}-${randomUUID()}`;
    const caller = await authorize(options, extra, 'start', undefined);
    const extraStart = options.startOptions?.({ agent, workflowId }) ?? {};
    if (caller.tenant !== undefined)
      await withinTenantLimit(options.client, options.maxRunsPerTenant, caller.tenant, workflowId);
    const run = await options.client.start({
      // A person waits on the call (an IDE, a desktop client): it goes ahead of background runs.
      priority: { priorityKey: INTERACTIVE_PRIORITY },
      ...(caller.tenant !== undefined && { tenant: caller.tenant }),
      ...(caller.user !== undefined && { user: caller.user }),
      ...extraStart,
      agent,
      prompt: args.prompt,
      workflowId,
    });
    return { run, caller };
  }
  if (args.prompt !== undefined)
    throw new RunInputError('invalid_input', 'Give either a prompt (a new run) or a runId (continue one), not both.');
  // The result is the run's status: reading it is asked first, so another tenant's run is unknown before anything else.
  const caller = await authorize(options, extra, 'read', args.runId);
  const run = options.client.run(args.runId);
  const status = await statusOf(run, agent, caller);
  const replies: RunReply[] = [];
  if (args.answer !== undefined)
    replies.push({
      kind: 'answer',
      answer: args.answer as JsonValue,
      ...(status.pending?.question && { questionId: status.pending.question.id }),
    });
  for (const d of args.decisions ?? []) replies.push(parseReply(d, false));
  if (args.budget !== undefined)
    replies.push(
      parseReply(
        { budget: args.budget, ...(status.pending?.budget && { requestId: status.pending.budget.id }) },
        false,
      ),
    );
  if (replies.length === 0) return { run, caller, read: status };
  if (isTerminal(status.status))
    throw new RunInputError('closed', `Run "${run.workflowId}" is ${status.status}; it takes no more answers.`);
  if (status.status !== 'input_required')
    throw new RunInputError(
      'not_pending',
      `Run "${run.workflowId}" is not waiting for an answer or a decision (it is ${status.status}).`,
    );
  for (const action of new Set(replies.map(replyAction))) await authorize(options, extra, action, run.workflowId);
  await applyReplies(run, replies);
  return { run, caller };
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
      await waitIdle(run, extra.signal, until);
      const status = await statusOf(run, agent, caller);
      if (status.status === 'working' && Date.now() < until) {
        // Idle but still working: its final answer is being written, or it handed over. Look again shortly.
        await sleep(250, undefined, { signal: extra.signal });
        continue;
      }
      if (status.status !== 'input_required') return result(status);
      // Form elicitation: declared as `form`, or as an empty object (the spec's default).
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
      await applyAuthorized(options, extra, run, reply);
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
  if (pending.question) {
    const { schema, flat } = elicitationSchema(pending.question);
    const answer = await ask({
      mode: 'form',
      message: pending.question.question,
      requestedSchema: schema,
    } as ElicitRequest['params']);
    if (answer?.action !== 'accept' || !answer.content) return undefined;
    return {
      kind: 'answer',
      answer: (flat ? answer.content.answer : answer.content) as JsonValue,
      questionId: pending.question.id,
    };
  }
  const held = pending.reviews[0];
  // A spent budget is not elicited (amounts of money): the result says how to decide it.
  if (!held) return undefined;
  const decisions = held.allowed.filter((d) => d !== 'edit');
  const answer = await ask({
    mode: 'form',
    message: reviewMessage(held),
    requestedSchema: {
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          title: 'Decision',
          enum: [...decisions],
          description:
            'accept: run it; reject: do not run it; respond: do not run it, give the model the note as its result.',
        },
        note: { type: 'string', title: 'Note', description: 'Why (reject), or the result to give (respond).' },
      },
      required: ['decision'],
    },
  } as ElicitRequest['params']);
  if (answer?.action !== 'accept' || !answer.content) return undefined;
  const note =
    typeof answer.content.note === 'string' && answer.content.note.trim() ? answer.content.note.trim() : undefined;
  const type = answer.content.decision;
  const decision =
    type === 'respond'
      ? { decision: 'respond', content: note ?? '' }
      : type === 'reject'
        ? { decision: 'reject', ...(note && { reason: note }) }
        : { decision: type };
  return parseReply({ ...decision, toolCallId: held.toolCallId, argsHash: held.argsHash }, false);
}

/** Whether the client takes form elicitation: declared as `form`, or as an empty object (the spec's default). */
function canElicit(server: McpServer): boolean {
  const elicitation = server.server.getClientCapabilities()?.elicitation as
    | { form?: unknown; url?: unknown }
    | undefined;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/** Gives the run a person's reply, as `authorize` allows; a reply the run refuses (it does not fit) is dropped: the person is asked anew. */
async function applyAuthorized(
  options: CairnMcpServerOptions,
  extra: Extra,
  run: AgentRunHandle,
  reply: RunReply,
): Promise<void> {
  try {
    await authorize(options, extra, replyAction(reply), run.workflowId);
    await applyReplies(run, [reply]);
  } catch (error) {
    const refused = runInputError(error, run.workflowId);
    if (!RunInputError.isInstance(refused) || refused.code === 'unknown_run' || refused.code === 'closed')
      throw refused;
  }
}

function reviewMessage(held: HeldCall): string {
  return `Allow ${held.name} with ${JSON.stringify(held.args)}?${held.description ? ` ${held.description}` : ''}`;
}

/** A flat form for the question: its fields when the schema is an object of primitives, else one text field. */
function elicitationSchema(question: PendingQuestion): { schema: JsonObject; flat: boolean } {
  const s = question.schema as { type?: unknown; properties?: Record<string, { type?: unknown }>; required?: string[] };
  const primitive = (p: { type?: unknown }) => p && ['string', 'number', 'integer', 'boolean'].includes(String(p.type));
  if (s.type === 'object' && s.properties && Object.values(s.properties).every(primitive))
    return {
      schema: { type: 'object', properties: s.properties as JsonObject, ...(s.required && { required: s.required }) },
      flat: false,
    };
  return {
    schema: {
      type: 'object',
      properties: { answer: { type: 'string', title: 'Answer', description: question.question } },
      required: ['answer'],
    },
    flat: true,
  };
}

/** Waits until the run needs someone or ends (a paused run is waited out), until `until`; an abort throws. */
async function waitIdle(run: AgentRunHandle, signal: AbortSignal, until: number): Promise<void> {
  while (Date.now() < until) {
    signal.throwIfAborted();
    const idle = run.untilIdle().then(
      (state) => (state.paused ? 'paused' : 'idle'),
      () => 'closed' as const,
    );
    const aborted = new Promise<'aborted'>((resolve) =>
      signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
    );
    const outcome = await Promise.race([idle, aborted, sleep(Math.max(until - Date.now(), 0), 'timeout' as const)]);
    if (outcome === 'aborted') signal.throwIfAborted();
    if (outcome !== 'paused') return;
    await sleep(1_000);
  }
}

function failure(code: string, message: string, runId: string | undefined): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}${runId ? ` (run ${runId})` : ''}` }] };
}

/** Asks `authorize` with the request's headers; returns who is asking (`{}` over stdio or when it does not say). */
async function authorize(
  options: CairnMcpServerOptions,
  extra: Extra,
  action: HttpAction,
  workflowId: string | undefined,
): Promise<Caller> {
  if (!options.authorize || !extra.requestInfo) return {};
  const headers = new Headers();
  for (const [key, value] of Object.entries(extra.requestInfo.headers ?? {})) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else if (typeof value === 'string') headers.set(key, value);
  }
  try {
    return await checkAuthorized(
      options.authorize,
      new Request(extra.requestInfo.url ?? 'http://mcp.invalid/', { headers }),
      action,
      workflowId === undefined ? undefined : { workflowId },
    );
  } catch (error) {
    throw new RunInputError('invalid_input', `Not allowed to ${action}: ${(error as Error).message}`);
  }
}
