/**
 * The worker side of `a2aAgent`: a call sends the model's message to the remote A2A agent (or the
 * answer to the task it names) and follows the task, polling it until it ends, waits for input, or
 * the tool's `timeoutMs` passes — inside the tool activity, so it heartbeats, is cancelled with its
 * run, and keeps the budgets, back-off and at-most-once rules of every tool. What comes back:
 * completed → the answer; input-required → a clarification of the calling run (`'person'`) or a
 * result telling the model how to answer (`'model'`); and failures in the taxonomy: the remote
 * cannot be reached → `tool_unavailable`; no end in time → `timeout`; the remote rejected, failed or
 * refused the message → `semantic_error`; it answered something that is not A2A → `output_schema_violation`;
 * a tool with `trust` and a card not signed by a trusted key (unsigned, another key, altered) →
 * `tool_unavailable` before anything is sent (a2a-activity-card-trust.ts).
 * Worker side only; loads `@a2a-js/sdk` (an optional peer), only when an agent has such a tool.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  canonicalizeAgentCard,
  SendMessageRequest,
  TaskState,
  type AgentCard,
  type Message,
  type Part,
  type Task,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { ToolFailure } from '../shared/failures/tool-failure.js';
import type { JsonObject, JsonValue } from '../shared/json/json.js';
import { a2aAgentOf, type A2ACall, type A2AAgentSettings } from '../shared/tools/a2a-agent.js';
import type { AnyTool, ToolContext } from '../shared/tools/define-tool.js';
import { cardRefusal, trustedKeys, verifyCard } from './a2a-activity-card-trust.js';

/** The data part a Cairn A2A server puts in an input-required status (servers/a2a/a2a-task.ts). */
const INPUT_REQUIRED_MEDIA_TYPE = 'application/vnd.cairn.input-required+json';
const POLL_MS = 500;

/** `tools` with each a2aAgent tool's execute bound to its remote agent. */
export function withA2AAgents(tools: readonly AnyTool[]): AnyTool[] {
  const clients = new Map<string, Promise<Client>>();
  return tools.map((tool) => {
    const settings = a2aAgentOf(tool);
    if (!settings) return tool;
    // Two tools at one URL share a client only when they trust the same keys (or none).
    const key = settings.trust ? `${settings.url}\n${JSON.stringify(settings.trust)}` : settings.url;
    const client = () => {
      let found = clients.get(key);
      if (!found) {
        found = connect(settings);
        clients.set(key, found);
        // A card that could not be read (or was refused) is asked for again next time.
        found.catch(() => clients.delete(key));
      }
      return found;
    };
    return {
      ...tool,
      execute: (args: unknown, context: ToolContext) => callRemote(settings, client, args as A2ACall, context),
    } as AnyTool;
  });
}

function connect(settings: A2AAgentSettings): Promise<Client> {
  const headers = settings.headers ?? {};
  const fetchImpl: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...headers } });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    }),
  );
  // The card path resolves against the URL: with a trailing slash it is read below the agent's path, not beside it.
  const base = settings.url.endsWith('/') ? settings.url : `${settings.url}/`;
  const card = new DefaultAgentCardResolver({ fetchImpl })
    .resolve(base)
    .catch((error: unknown) => Promise.reject(unreachable(settings, error)));
  return card.then((found) => {
    // A signed card is checked before any client exists, so a refused card sends nothing.
    if (settings.trust) checkedCard(settings, found);
    return factory.createFromAgentCard(found).catch((error: unknown) => Promise.reject(unreachable(settings, error)));
  });
}

/** Throws the one `tool_unavailable` refusal when the card is not signed by a key the tool trusts. */
function checkedCard(settings: A2AAgentSettings, card: AgentCard): void {
  const keys = trustedKeys(settings.name, settings.trust!);
  const verdict = verifyCard(canonicalizeAgentCard(card), card.signatures, keys);
  if (verdict.verdict !== 'trusted') throw cardRefusal(settings.name, settings.url, verdict);
}

async function callRemote(
  settings: A2AAgentSettings,
  client: () => Promise<Client>,
  call: A2ACall,
  context: ToolContext,
): Promise<JsonValue> {
  const remote = await client();
  const parts: JsonObject[] = [];
  if (call.message) parts.push({ text: call.message });
  if (call.reply) parts.push({ data: call.reply as JsonObject });
  const until = Date.now() + settings.timeoutMs;
  let task: Task;
  try {
    if (parts.length > 0) {
      // The message id is the call's idempotency key: a retried attempt resends the same message.
      const request = SendMessageRequest.fromJSON({
        message: {
          messageId: call.taskId ? `${context.idempotencyKey}:${randomUUID()}` : context.idempotencyKey,
          role: 'ROLE_USER',
          parts,
          ...(call.taskId && { taskId: call.taskId }),
        },
        configuration: { returnImmediately: true },
      });
      const sent = await remote.sendMessage(request, { signal: context.signal });
      if (!('status' in sent)) return { status: 'completed', answer: textOf((sent as Message).parts) };
      task = sent;
    } else task = await remote.getTask({ tenant: '', id: call.taskId! }, { signal: context.signal });
    while (!settled(task)) {
      if (Date.now() >= until)
        throw ToolFailure.timeout(
          `${settings.name}: the remote task ${task.id} did not finish within ${settings.timeoutMs} ms; it goes on — call again with { "taskId": "${task.id}" } to follow it.`,
        );
      await sleep(POLL_MS, undefined, { signal: context.signal });
      task = await remote.getTask({ tenant: '', id: task.id }, { signal: context.signal });
    }
  } catch (error) {
    throw failureOf(settings, error, call);
  }
  return outcome(settings, task, call);
}

function settled(task: Task): boolean {
  const state = task.status?.state;
  return (
    state !== TaskState.TASK_STATE_WORKING &&
    state !== TaskState.TASK_STATE_SUBMITTED &&
    state !== TaskState.TASK_STATE_UNSPECIFIED
  );
}

/** What a settled task means for the calling run. */
function outcome(settings: A2AAgentSettings, task: Task, call: A2ACall): JsonValue {
  const state = task.status?.state;
  const said = textOf(task.status?.message?.parts ?? []);
  switch (state) {
    case TaskState.TASK_STATE_COMPLETED:
      return {
        status: 'completed',
        taskId: task.id,
        answer:
          task.artifacts
            .map((a) => textOf(a.parts))
            .filter(Boolean)
            .join('\n') || said,
      };
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return inputRequired(settings, task, said);
    case TaskState.TASK_STATE_REJECTED:
      throw ToolFailure.semantic(`${settings.name} rejected the task: ${said || 'no reason given'}.`);
    case TaskState.TASK_STATE_FAILED:
      throw ToolFailure.semantic(`${settings.name}'s task ${task.id} failed: ${said || 'no reason given'}.`);
    case TaskState.TASK_STATE_CANCELED:
      throw ToolFailure.semantic(`${settings.name}'s task ${task.id} was canceled${said ? `: ${said}` : ''}.`);
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      throw ToolFailure.unavailable(
        `${settings.name} needs credentials this worker does not have (task ${task.id} is auth-required).`,
      );
    default:
      throw new ToolFailure(
        'output_schema_violation',
        `${settings.name} answered with a task in an unknown state (${String(state)}${call.taskId ? `, task ${call.taskId}` : ''}).`,
      );
  }
}

/** The remote waits: the model is told how to answer, or the calling run asks a person. */
function inputRequired(settings: A2AAgentSettings, task: Task, said: string): JsonValue {
  const data = dataOf(task.status?.message?.parts ?? []);
  const question = data?.question as { question?: string; missingFields?: string[] } | null | undefined;
  const reviews =
    (data?.reviews as
      | { toolCallId: string; name: string; args: JsonValue; argsHash: string; allowed: string[] }[]
      | undefined) ?? [];
  if (settings.onInputRequired === 'model')
    return JSON.parse(
      JSON.stringify({
        status: 'input_required',
        taskId: task.id,
        asked: said,
        question: question ?? null,
        reviews,
        howToAnswer: `Call ${settings.name} again with { "taskId": "${task.id}", "message": <the answer> }${reviews.length > 0 ? ` or, for a held call, "reply": { "decision": "accept" | "reject" | …, "toolCallId", "argsHash" }` : ''}.`,
      }),
    ) as JsonValue;
  const held = reviews[0];
  if (question?.question || !held)
    throw ToolFailure.invalidArguments(`${settings.name} needs an answer before it can go on (task ${task.id}).`, {
      clarifyingQuestion: question?.question ?? (said || `${settings.name} asks for more input.`),
      missingFields: ['message'],
      exampleInput: { taskId: task.id, message: '<the answer>' },
    });
  throw ToolFailure.invalidArguments(`${settings.name} holds ${held.name} for review (task ${task.id}).`, {
    clarifyingQuestion: `${settings.name} wants to run ${held.name} with ${JSON.stringify(held.args)}. Allow it (${held.allowed.join(', ')})?`,
    missingFields: ['reply'],
    exampleInput: {
      taskId: task.id,
      reply: { decision: 'accept', toolCallId: held.toolCallId, argsHash: held.argsHash },
    },
  });
}

function textOf(parts: readonly Part[]): string {
  return parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter(Boolean)
    .join('\n');
}

function dataOf(parts: readonly Part[]): Record<string, unknown> | undefined {
  const found = parts.find(
    (p) =>
      p.content?.$case === 'data' &&
      (p.mediaType === INPUT_REQUIRED_MEDIA_TYPE ||
        (p.content.value as { kind?: unknown })?.kind === 'cairn.input-required'),
  );
  return found?.content?.$case === 'data' ? (found.content.value as Record<string, unknown>) : undefined;
}

/** A thrown error as the taxonomy names it. */
function failureOf(settings: A2AAgentSettings, error: unknown, call: A2ACall): unknown {
  if (ToolFailure.isInstance(error)) return error;
  const e = error as { name?: string; message?: string; cause?: { code?: string } };
  if (e?.name === 'AbortError' || e?.name === 'CancelledFailure') return error;
  switch (e?.name) {
    case 'TaskNotFoundError':
      return ToolFailure.invalidArguments(`${settings.name} has no task ${call.taskId ?? ''}: ${e.message}`, {
        message: 'Start a new task (leave taskId out) or use a taskId an earlier result gave.',
      });
    case 'RequestMalformedError':
    case 'ContentTypeNotSupportedError':
      return ToolFailure.invalidArguments(`${settings.name} refused the message: ${e.message}`);
    case 'UnsupportedOperationError':
    case 'TaskNotCancelableError':
      return ToolFailure.semantic(`${settings.name} refused: ${e.message}`);
    case 'InvalidAgentResponseError':
      return new ToolFailure(
        'output_schema_violation',
        `${settings.name} answered something that is not A2A: ${e.message}`,
      );
  }
  const message = e?.message ?? '';
  // An HTTP status, or no connection at all: the remote is not there for us.
  if (/^HTTP error for /.test(message) || (error instanceof TypeError && /fetch failed/i.test(message)))
    return unreachable(settings, error);
  if (error instanceof SyntaxError || /invalid response|missing|mismatch|unexpected/i.test(message))
    return new ToolFailure(
      'output_schema_violation',
      `${settings.name} answered something that is not A2A: ${message}`,
    );
  // A JSON-RPC error the remote chose (an internal error, a code of its own): it failed the request.
  if (e?.name && /Error$/.test(e.name) && e.name !== 'Error' && e.name !== 'TypeError')
    return ToolFailure.semantic(`${settings.name} failed the request: ${message}`);
  return unreachable(settings, error);
}

function unreachable(settings: A2AAgentSettings, error: unknown): ToolFailure {
  return ToolFailure.unavailable(
    `${settings.name} (${settings.url}) cannot be reached: ${(error as Error)?.message ?? String(error)}`,
  );
}
