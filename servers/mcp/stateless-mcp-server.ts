/**
 * The agents as MCP tools in the stateless revision, MCP 2026-07-28 (`@modelcontextprotocol/server`
 * 2.x): no session, one server instance per HTTP request. A call starts or continues a run as in
 * 2025-11-25 (run-call.ts) and waits until the run needs someone or ends. Where 2025-11-25 sends the
 * client an `elicitation/create`, this revision answers the call with an `input_required` result: the
 * form (run-input-form.ts) and a `requestState` naming the run and what is asked; the client asks its
 * person and retries the call with the answer and the state. The state is all a retry needs, so any
 * server process answers it: the run is read from Temporal, `authorize` is asked again, and the
 * answer goes to the run only while it still waits for what was asked (else the run is followed as
 * it stands). The state names nothing the caller could not name as `runId`; with `requestStateKey`
 * it is also signed (the SDK's HMAC codec) and expires. A client that cannot elicit, or a person who
 * declines, gets the `input_required` tool result that says how to answer by `runId`. A call the
 * client abandons (the request aborted) that started its run cancels the run gracefully.
 * The SDK's tasks have no runtime in 2.x: a long run is `working`, continued by `runId`.
 * Loaded only through `import()` (the package is an optional peer). Node-only (client side).
 */
import {
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  McpServer,
  type CallToolResult,
  type ElicitRequestFormParams,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import type { Caller } from '../http/authorize.js';

import type { CairnMcpServerOptions } from './cairn-mcp-server.js';
import { refusedCall, result, statusOf } from './run-result.js';
import {
  applyAuthorized,
  authorize,
  begin,
  CANCEL_REASON,
  describeAgent,
  inputShape,
  outputShape,
  settle,
  type CallArgs,
} from './run-call.js';
import { formOf, replyOf, stillAsked, takesForms, type FormSubject } from './run-input-form.js';

/** The protocol revision this server speaks. */
export const STATELESS_MCP_REVISION = '2026-07-28';
/** The key of the one input request a round asks. */
const PERSON = 'person';
/** The most rounds one call takes before it hands what is asked back in its result. */
const MAX_ROUNDS = 16;

/** What a round's `requestState` carries: the run, what its person was asked, whether this call started it. */
export interface RoundState {
  readonly runId: string;
  readonly ask: FormSubject;
  readonly started: boolean;
  readonly rounds: number;
}

export interface StatelessMcpServerContext {
  /** The HTTP request being served (its headers, for `authorize`); none over stdio. */
  readonly request?: Request | undefined;
  /** True once the endpoint is closing: an aborted call then leaves its run alone. */
  readonly closing?: () => boolean;
}

/** Seals and opens a round's state: plain JSON, or signed with `requestStateKey`. */
interface RoundCodec {
  mint(state: RoundState): Promise<string>;
  verify(state: string, ctx: ServerContext): Promise<RoundState>;
}

function roundCodec(options: CairnMcpServerOptions): RoundCodec {
  const ttlSeconds = Math.ceil((options.elicitationTimeoutMs ?? 600_000) / 1000) + 60;
  if (options.requestStateKey !== undefined) {
    const codec = createRequestStateCodec<RoundState>({ key: options.requestStateKey, ttlSeconds });
    return { mint: (s) => codec.mint(s), verify: async (s, ctx) => checkedRound(await codec.verify(s, ctx)) };
  }
  return { mint: async (s) => JSON.stringify(s), verify: async (s) => checkedRound(JSON.parse(s)) };
}

const roundSchema = z.object({
  runId: z.string().min(1).max(500),
  ask: z.union([
    z.object({ question: z.string().min(1).max(500) }).strict(),
    z.object({ toolCallId: z.string().min(1).max(500), argsHash: z.string().min(1).max(200) }).strict(),
  ]),
  started: z.boolean(),
  rounds: z.number().int().min(0).max(MAX_ROUNDS),
});

function checkedRound(value: unknown): RoundState {
  return roundSchema.parse(value) as RoundState;
}

/** A server for one request of the stateless revision (the factory `createMcpHandler` calls per request). */
export function createStatelessCairnMcpServer(
  options: CairnMcpServerOptions,
  context: StatelessMcpServerContext = {},
): McpServer {
  const codec = roundCodec(options);
  const server = new McpServer(options.serverInfo ?? { name: 'cairn', version: '0.2.0' }, {
    capabilities: { tools: {} },
    // A state that does not open (altered, expired, not this server's) is the SDK's -32602 before the tool runs.
    requestState: { verify: (state, ctx) => codec.verify(state, ctx) },
  });
  for (const agent of options.agents)
    server.registerTool(
      agent.name,
      {
        title: agent.name,
        description: options.describe?.[agent.name] ?? describeAgent(agent),
        inputSchema: z.object(inputShape),
        outputSchema: z.object(outputShape),
        annotations: { openWorldHint: true },
      },
      (args, ctx) => callAgent(options, context, codec, agent.name, args as CallArgs, ctx),
    );
  return server;
}

async function callAgent(
  options: CairnMcpServerOptions,
  context: StatelessMcpServerContext,
  codec: RoundCodec,
  agent: string,
  args: CallArgs,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const request = context.request ?? ctx.http?.req;
  const round = ctx.mcpReq.requestState<RoundState>();
  try {
    let run: AgentRunHandle;
    let caller: Caller;
    if (round) {
      // A retry: the run is the state's (the arguments are the first round's, echoed), asked anew.
      caller = await authorize(options, request, 'read', round.runId);
      run = options.client.run(round.runId);
      const status = await statusOf(run, agent, caller);
      if (status.status === 'input_required' && stillAsked(status.pending, round.ask)) {
        const answered = inputResponse(ctx.mcpReq.inputResponses, PERSON);
        // Declined, cancelled or not answered: what is asked, to answer later by runId.
        if (answered.kind !== 'elicit' || answered.action !== 'accept' || !answered.content) return result(status);
        await applyAuthorized(options, request, run, replyOf(status.pending!, round.ask, answered.content));
      }
    } else {
      const begun = await begin(options, agent, args, request);
      // No worker answered for the run: following it would wait for one. Say where it stands, now.
      if (begun.read?.state?.stale) return result(begun.read);
      ({ run, caller } = begun);
    }
    const started = round?.started ?? args.runId === undefined;
    const rounds = round?.rounds ?? 0;
    const status = await followed(options, context, run, agent, caller, ctx.mcpReq.signal, started);
    if (status.status !== 'input_required' || rounds >= MAX_ROUNDS || !canElicit(ctx)) return result(status);
    const asked = formOf(status.pending!);
    if (!asked) return result(status);
    return inputRequired({
      inputRequests: { [PERSON]: inputRequired.elicit(asked.form as unknown as ElicitRequestFormParams) },
      requestState: await codec.mint({ runId: run.workflowId, ask: asked.subject, started, rounds: rounds + 1 }),
    });
  } catch (error) {
    const runId = round?.runId ?? args.runId;
    return refusedCall(error, runId);
  }
}

/** Waits for the run; the client's abort of the call that started it cancels it (not a closing endpoint's). */
async function followed(
  options: CairnMcpServerOptions,
  context: StatelessMcpServerContext,
  run: AgentRunHandle,
  agent: string,
  caller: Caller,
  signal: AbortSignal,
  started: boolean,
) {
  const onAbort = () => {
    if (started && !context.closing?.()) void run.cancel(CANCEL_REASON).catch(() => undefined);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await settle(run, agent, caller, signal, Date.now() + (options.maxWaitMs ?? 45_000));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Whether the client declared form elicitation in this request's envelope (as an empty object: the spec's default). */
function canElicit(ctx: ServerContext): boolean {
  const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
    'io.modelcontextprotocol/clientCapabilities'
  ] as { elicitation?: { form?: unknown; url?: unknown } } | undefined;
  return takesForms(capabilities?.elicitation);
}
