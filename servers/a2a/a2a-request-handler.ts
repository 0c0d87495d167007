/**
 * CairnA2ARequestHandler: `@a2a-js/sdk`'s `A2ARequestHandler` for one served agent, as a stateless
 * driver of the run API (no TaskStore, no event bus: every task is read from its run). A new
 * message starts a run (task id = workflow id; the context id goes into the run's memo); a message
 * in a task that waits answers its question or decides its held calls, checked by the run's own
 * Update validators; a message in a working task is delivered to the run as a user message.
 * Streaming follows the run until it waits or ends; cancel ends the run gracefully.
 * A caller of a tenant (`authorize` returned `{ tenant, user }`) starts the tenant's runs and sees
 * only them: another tenant's task is TaskNotFound, word for word as one that never was.
 * Node-only (client side); loads `@a2a-js/sdk` (an optional peer).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  TaskState,
  type AgentCard,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  type ListTasksResponse,
} from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { AgentRunHandle } from '../../client/agent-run-handle.js';
import { withinReadDeadline } from '../../client/bounded-read.js';
import { INTERACTIVE_PRIORITY, type CairnClient, type StartRunOptions } from '../../client/cairn-client.js';
import { checkAuthorized, type Authorize, type Caller, type HttpAction } from '../http/authorize.js';
import { TENANT_MEMO } from '../../workflows/contract/search-attributes.js';
import { withinTenantLimit, type MaxRunsPerTenant } from '../http/tenant-limit.js';
import { answerArtifact, CONTEXT_MEMO_KEY, contextIdOf, taskState, toTask } from './a2a-task.js';
import { applyReplies, parseReply, replyAction, RunInputError, runInputError, type RunReply } from './run-input.js';
import { isTerminal, listedStatus, runStatus, type RunStatus } from './run-status.js';
import { taskHistory } from './task-history.js';
import { pushTargetProblem, type PushTarget } from '../../workflows/contract/status-push.js';
import { listRuns } from '../../client/list-runs.js';

/** What a handler instance needs; shared by the agents a server serves. */
export interface A2AHandlerSettings {
  readonly client: CairnClient;
  readonly authorize: Authorize | undefined;
  /** Task ids of runs started here: this prefix, the agent's name, a dash and a UUID. */
  readonly taskPrefix: string;
  /** How long a blocking SendMessage waits for the run to need someone or finish before it returns the working task. */
  readonly maxWaitMs: number;
  readonly startOptions:
    | ((run: {
        readonly agent: string;
        readonly workflowId: string;
        readonly contextId: string;
        readonly request: Request;
      }) => Partial<StartRunOptions>)
    | undefined;
  readonly maxRunsPerTenant: MaxRunsPerTenant | undefined;
}

/** Keys of `ServerCallContext.state` the web handler fills in. */
export const REQUEST_KEY = 'cairn.request';
export const SIGNAL_KEY = 'cairn.signal';
/** Where a refusal (by `authorize`, or a tenant's limit of runs) is left for the web handler to answer with its HTTP status. */
export const AUTH_ERROR_KEY = 'cairn.authError';

const CANCEL_REASON = 'cancelled over A2A';
/** The most tasks one ListTasks page holds, and the most runs it looks through. */
const MAX_PAGE = 100;
const MAX_SCAN = 1_000;
/** The longest prompt a message may start a run with (as the HTTP handler's). */
const MAX_PROMPT_CHARS = 40_000;
/** The most messages a task's history holds (the newest). */
const MAX_HISTORY = 100;

export class CairnA2ARequestHandler implements A2ARequestHandler {
  constructor(
    readonly agent: string,
    private readonly card: AgentCard,
    private readonly settings: A2AHandlerSettings,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError('This agent has no extended card.');
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const { run, caller } = await this.#deliver(params, context);
    await this.#pushFromMessage(params, run);
    if (params.configuration?.returnImmediately)
      return toTask({ ...(await this.#status(run, caller)), status: 'working' });
    return toTask(await this.#settle(run, caller, signalOf(context), Date.now() + this.settings.maxWaitMs));
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const { run, caller } = await this.#deliver(params, context);
    await this.#pushFromMessage(params, run);
    // Just delivered: the run is working on it (its state may not show that yet).
    const first = { ...(await this.#status(run, caller)), status: 'working' as const };
    yield { payload: { $case: 'task', value: toTask(first) } };
    yield* this.#follow(run, caller, signalOf(context));
  }

  async *resubscribe(
    params: { readonly id: string },
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const caller = await this.#authorize(context, 'events', params.id);
    const run = this.settings.client.run(requireId(params.id));
    const status = await this.#status(run, caller);
    if (isTerminal(status.status))
      throw new UnsupportedOperationError(
        `Task "${params.id}" is ${status.status}: there is nothing to subscribe to (GetTask reads it).`,
      );
    yield { payload: { $case: 'task', value: toTask(status) } };
    if (status.status === 'input_required') return;
    yield* this.#follow(run, caller, signalOf(context));
  }

  async getTask(
    params: { readonly id: string; readonly historyLength?: number | undefined },
    context: ServerCallContext,
  ): Promise<Task> {
    const caller = await this.#authorize(context, 'read', params.id);
    const run = this.settings.client.run(requireId(params.id));
    const status = await this.#status(run, caller);
    const wanted = Math.min(params.historyLength ?? MAX_HISTORY, MAX_HISTORY);
    return toTask(
      status,
      wanted > 0 && status.state
        ? await taskHistory(run, contextIdOf(status), wanted, status.state).catch(() => [])
        : [],
    );
  }

  async listTasks(
    params: {
      readonly contextId: string;
      readonly status: TaskState;
      readonly pageSize?: number | undefined;
      readonly pageToken: string;
    },
    context: ServerCallContext,
  ): Promise<ListTasksResponse> {
    const caller = await this.#authorize(context, 'read', undefined);
    const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), MAX_PAGE);
    const offset = params.pageToken ? Number(params.pageToken) : 0;
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new RequestMalformedError('pageToken is not one this server gave.');
    const prefix = `${this.settings.taskPrefix}${this.agent}-`;
    const seen = new Set<string>();
    const tasks: Task[] = [];
    let matched = 0;
    let scanned = 0;
    let more = false;
    // A tenant's tasks only: its context ids are its own (two tenants' "support-1" are two contexts).
    // TENANT_ID admits no quote: the tenant is safe in the query as it is.
    const scoped = caller.tenant !== undefined && (await this.settings.client.hasSearchAttributes());
    const query = `WorkflowType = 'agentRun'${scoped ? ` AND CairnTenant = '${caller.tenant}'` : ''}`;
    // No status, UNSPECIFIED, or the SDK client's UNRECOGNIZED (what its listTasks() sends with none): no filter.
    const filtered = isTaskStateFilter(params.status);
    for await (const info of listRuns(this.settings.client.temporal, { query })) {
      if (++scanned > MAX_SCAN) break;
      if (!info.workflowId.startsWith(prefix) || seen.has(info.workflowId)) continue;
      seen.add(info.workflowId);
      if (caller.tenant !== undefined && info.memo?.[TENANT_MEMO] !== caller.tenant) continue;
      if (params.contextId && info.memo?.[CONTEXT_MEMO_KEY] !== params.contextId) continue;
      if (tasks.length >= pageSize) {
        more = true;
        break;
      }
      // From the listing alone (memo and search attributes): never a Query per listed run.
      const status = listedStatus(info);
      if (status.state?.agent && status.state.agent !== this.agent) continue;
      if (filtered && taskState(status.status) !== params.status) continue;
      if (matched++ < offset) continue;
      tasks.push(toTask(status));
    }
    return {
      tasks,
      nextPageToken: more ? String(offset + tasks.length) : '',
      pageSize,
      totalSize: offset + tasks.length + (more ? 1 : 0),
    };
  }

  async cancelTask(params: { readonly id: string }, context: ServerCallContext): Promise<Task> {
    const caller = await this.#authorize(context, 'cancel', params.id);
    const run = this.settings.client.run(requireId(params.id));
    let status = await this.#status(run, caller);
    if (isTerminal(status.status)) throw new TaskNotCancelableError(`Task "${params.id}" is already ${status.status}.`);
    await run.cancel(CANCEL_REASON).catch((error) => Promise.reject(toA2AError(runInputError(error, run.workflowId))));
    // The run takes the cancel at its next step: wait (bounded) until it says so.
    const until = Date.now() + 10_000;
    while (!isTerminal(status.status) && Date.now() < until) {
      await sleep(200);
      status = await this.#status(run, caller);
    }
    return toTask(isTerminal(status.status) ? status : { ...status, status: 'canceled', reason: CANCEL_REASON });
  }

  /**
   * Push notifications: the config goes into the run (a push target, checked there), and the run
   * posts the task at each change of its status from an activity that retries while the receiver
   * is down — durable, whichever server instance took the config. The receiver hears the current
   * status at once.
   */
  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    const caller = await this.#authorize(context, 'events', params.taskId);
    const run = this.settings.client.run(requireId(params.taskId));
    const target = pushTargetOf(params);
    const status = await this.#status(run, caller);
    if (isTerminal(status.status) && status.closeTime)
      throw new UnsupportedOperationError(
        `Task "${run.workflowId}" is ${status.status}: it has nothing more to notify.`,
      );
    return this.#setPush(run, target);
  }

  async getTaskPushNotificationConfig(
    params: { readonly taskId: string; readonly id: string },
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    const { configs } = await this.listTaskPushNotificationConfigs(params, context);
    const config = configs.find((c) => c.id === params.id);
    if (!config)
      throw new TaskNotFoundError(`Push notification config "${params.id}" not found for task ${params.taskId}.`);
    return config;
  }

  async listTaskPushNotificationConfigs(
    params: { readonly taskId: string },
    context: ServerCallContext,
  ): Promise<{ configs: TaskPushNotificationConfig[]; nextPageToken: string }> {
    const caller = await this.#authorize(context, 'read', params.taskId);
    const run = this.settings.client.run(requireId(params.taskId));
    const status = await this.#status(run, caller);
    // Only the run keeps its targets: with no worker to answer (its state just now was stale, or
    // none answers within the read deadline), none are shown.
    const targets = status.state?.stale ? [] : await withinReadDeadline(run, () => run.pushTargets()).catch(() => []);
    return { configs: targets.map((t) => pushConfig(run.workflowId, t)), nextPageToken: '' };
  }

  async deleteTaskPushNotificationConfig(
    params: { readonly taskId: string; readonly id: string },
    context: ServerCallContext,
  ): Promise<void> {
    const caller = await this.#authorize(context, 'events', params.taskId);
    const run = this.settings.client.run(requireId(params.taskId));
    const status = await this.#status(run, caller);
    if (isTerminal(status.status) && status.closeTime) return; // a closed run posts nothing more
    await run.deletePushTarget(params.id).catch((error) => Promise.reject(pushError(error)));
  }

  /** A message's own push config (`configuration.taskPushNotificationConfig`), set on its run. */
  async #pushFromMessage(params: SendMessageRequest, run: AgentRunHandle): Promise<void> {
    const config = params.configuration?.taskPushNotificationConfig;
    if (config?.url) await this.#setPush(run, pushTargetOf(config));
  }

  async #setPush(run: AgentRunHandle, target: PushTarget): Promise<TaskPushNotificationConfig> {
    return pushConfig(
      run.workflowId,
      await run.setPushTarget(target).catch((error) => Promise.reject(pushError(error))),
    );
  }

  /** Starts the run a new message asks for, or delivers a message to the task it names. */
  async #deliver(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<{ readonly run: AgentRunHandle; readonly caller: Caller }> {
    const message = params.message;
    if (!message || message.parts.length === 0)
      throw new RequestMalformedError('SendMessage needs a message with at least one part.');
    // A bad push config is refused before anything starts.
    const push = params.configuration?.taskPushNotificationConfig;
    if (push?.url) pushTargetOf(push);
    const texts: string[] = [];
    const data: unknown[] = [];
    for (const [i, part] of message.parts.entries()) {
      const content = part.content;
      if (content?.$case === 'text') texts.push(content.value);
      else if (content?.$case === 'data') data.push(content.value);
      else throw new RequestMalformedError(partRefusal(i, content?.$case));
    }
    if (!message.taskId) return this.#start(message, texts, data, context);

    // The reply is the task: reading it is asked first, so another tenant's task is not found before anything else.
    const caller = await this.#authorize(context, 'read', message.taskId);
    const run = this.settings.client.run(message.taskId);
    const status = await this.#status(run, caller);
    if (isTerminal(status.status))
      throw new UnsupportedOperationError(
        `Task "${message.taskId}" is ${status.status} and takes no more messages; start a new task (in the same contextId).`,
      );
    if (status.status === 'input_required') {
      const pending = status.pending!;
      const replies: RunReply[] = data.map((value) => parseReply(value, pending.question !== null));
      const text = texts.join('\n').trim();
      if (text && !replies.some((r) => r.kind === 'answer')) {
        if (!pending.question)
          throw toA2AError(
            new RunInputError(
              'invalid_input',
              'Only held calls wait here: decide each with a data part { decision, toolCallId, argsHash }.',
            ),
          );
        replies.unshift({ kind: 'answer', answer: text, questionId: pending.question.id });
      }
      if (replies.length === 0)
        throw toA2AError(
          new RunInputError(
            'invalid_input',
            'The message answers nothing: send { answer } or { decision, toolCallId, argsHash }.',
          ),
        );
      for (const action of new Set(replies.map(replyAction))) await this.#authorize(context, action, run.workflowId);
      await applyReplies(run, replies).catch((error) => Promise.reject(toA2AError(error)));
      return { run, caller };
    }
    if (data.length > 0)
      throw toA2AError(
        new RunInputError(
          'not_pending',
          `Task "${message.taskId}" is not waiting for input; a data part answers a question or a held call only while the task is input-required.`,
        ),
      );
    await this.#authorize(context, 'message', run.workflowId);
    const sent = await run.send(texts.join('\n'));
    if (sent.status !== 'accepted')
      throw toA2AError(
        new RunInputError(
          sent.status === 'refused' && sent.code === 'closed' ? 'closed' : 'invalid_input',
          `The run did not take the message (${sent.status}): ${sent.message}`,
        ),
      );
    return { run, caller };
  }

  async #start(
    message: Message,
    texts: string[],
    data: unknown[],
    context: ServerCallContext,
  ): Promise<{ readonly run: AgentRunHandle; readonly caller: Caller }> {
    const caller = await this.#authorize(context, 'start', undefined);
    const prompt = [...texts, ...data.map((d) => JSON.stringify(d))].join('\n').trim();
    if (!prompt) throw new RequestMalformedError('The message is empty: say what the agent should do.');
    if (prompt.length > MAX_PROMPT_CHARS)
      throw new RequestMalformedError(`The message is longer than ${MAX_PROMPT_CHARS} characters.`);
    const contextId = message.contextId || randomUUID();
    if (contextId.length > 200) throw new RequestMalformedError('contextId is longer than 200 characters.');
    const workflowId = `${this.settings.taskPrefix}${this.agent}-${randomUUID()}`;
    const request = context.state.get(REQUEST_KEY) as Request;
    const extra = this.settings.startOptions?.({ agent: this.agent, workflowId, contextId, request }) ?? {};
    if (caller.tenant !== undefined)
      await withinTenantLimit(this.settings.client, this.settings.maxRunsPerTenant, caller.tenant, workflowId).catch(
        (error: unknown) => {
          context.state.set(AUTH_ERROR_KEY, error);
          throw new UnsupportedOperationError('The tenant is at its limit of runs in flight.');
        },
      );
    const run = await this.settings.client.start({
      // A caller waits on the task (a blocking SendMessage, a stream): it goes ahead of background runs.
      priority: { priorityKey: INTERACTIVE_PRIORITY },
      ...(caller.tenant !== undefined && { tenant: caller.tenant }),
      ...(caller.user !== undefined && { user: caller.user }),
      ...extra,
      agent: this.agent,
      prompt,
      workflowId,
      temporal: { ...extra.temporal, memo: { ...extra.temporal?.memo, [CONTEXT_MEMO_KEY]: contextId } },
    });
    return { run, caller };
  }

  /** The run's status, refusing runs of other agents, of other tenants and unknown ids as TaskNotFound. */
  async #status(run: AgentRunHandle, caller: Caller): Promise<RunStatus> {
    const status = await runStatus(run, caller.tenant).catch((error) =>
      Promise.reject(toA2AError(runInputError(error, run.workflowId))),
    );
    if (status.state && status.state.agent !== this.agent)
      throw new TaskNotFoundError(`No task "${run.workflowId}" for agent ${this.agent}.`);
    return status;
  }

  /** Status updates from `from` on, until the run waits for someone or ends. */
  async *#follow(
    run: AgentRunHandle,
    caller: Caller,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    for (;;) {
      const status = await this.#settle(run, caller, signal, Number.POSITIVE_INFINITY);
      const task = toTask(status);
      if (task.artifacts[0])
        yield {
          payload: {
            $case: 'artifactUpdate',
            value: {
              taskId: task.id,
              contextId: task.contextId,
              artifact: answerArtifact(status.answer ?? ''),
              append: false,
              lastChunk: true,
              metadata: undefined,
            },
          },
        };
      yield {
        payload: {
          $case: 'statusUpdate',
          value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: undefined },
        },
      };
      if (status.status !== 'working') return;
    }
  }

  /** The run's status once it is no longer working (it waits for someone or ended), or at `until`. */
  async #settle(
    run: AgentRunHandle,
    caller: Caller,
    signal: AbortSignal | undefined,
    until: number,
  ): Promise<RunStatus> {
    for (;;) {
      await this.#waitIdle(run, signal, until - Date.now());
      const status = await this.#status(run, caller);
      if (status.status !== 'working' || Date.now() >= until) return status;
      // Idle but still working: its final answer is being written, or it handed over. Look again shortly.
      await sleep(250);
    }
  }

  /** Waits until the run needs someone, is finished or failed — a paused run is waited out — within `maxMs`. */
  async #waitIdle(run: AgentRunHandle, signal: AbortSignal | undefined, maxMs: number): Promise<void> {
    const until = Date.now() + maxMs;
    while (Date.now() < until) {
      signal?.throwIfAborted();
      const left = until - Date.now();
      const idle = run.untilIdle().then(
        (state) => (state.paused ? 'paused' : 'idle'),
        () => 'closed' as const,
      );
      const outcome = await Promise.race([
        idle,
        ...(Number.isFinite(left) ? [sleep(left, 'timeout' as const)] : []),
        ...(signal ? [aborted(signal)] : []),
      ]);
      if (outcome !== 'paused') return;
      await sleep(1_000);
    }
  }

  /** Asks `authorize`; returns who is asking (`{}` when it does not say, or without a request). */
  async #authorize(context: ServerCallContext, action: HttpAction, workflowId: string | undefined): Promise<Caller> {
    const request = context.state.get(REQUEST_KEY) as Request | undefined;
    if (!request) return {};
    try {
      return await checkAuthorized(
        this.settings.authorize,
        request,
        action,
        workflowId === undefined ? undefined : { workflowId },
      );
    } catch (error) {
      context.state.set(AUTH_ERROR_KEY, error);
      throw new UnsupportedOperationError(`Not authorized to ${action}.`);
    }
  }
}

/** The run's push target a config asks for; RequestMalformed when the run would refuse it. */
function pushTargetOf(config: TaskPushNotificationConfig): PushTarget {
  const target: PushTarget = {
    id: config.id || randomUUID(),
    url: config.url,
    ...(config.token && { token: config.token }),
    ...(config.authentication?.scheme && {
      authentication: { scheme: config.authentication.scheme, credentials: config.authentication.credentials },
    }),
  };
  const problem = pushTargetProblem(target);
  if (problem) throw new RequestMalformedError(problem);
  return target;
}

function pushConfig(taskId: string, target: PushTarget): TaskPushNotificationConfig {
  return {
    tenant: '',
    id: target.id,
    taskId,
    url: target.url,
    token: target.token ?? '',
    authentication: target.authentication && { ...target.authentication },
  };
}

/** A refused push Update as the protocol's error: the run's own words, or a closed task. */
function pushError(error: unknown): unknown {
  const cause = (error as { cause?: { message?: string; type?: string } }).cause;
  if (cause?.type === 'invalid_push_target') return new RequestMalformedError(cause.message ?? 'Invalid push target.');
  if ((error as Error).name === 'WorkflowNotFoundError')
    return new UnsupportedOperationError('The task has ended: it has nothing more to notify.');
  return error;
}

function signalOf(context: ServerCallContext): AbortSignal | undefined {
  return context.state.get(SIGNAL_KEY) as AbortSignal | undefined;
}

function aborted(signal: AbortSignal): Promise<'aborted'> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve('aborted'), { once: true }));
}

function requireId(id: string): string {
  if (typeof id !== 'string' || !id.trim() || id.length > 500)
    throw new RequestMalformedError('A task id is required.');
  return id;
}

/** The A2A error for a refused reply or an unknown run; other errors pass through (internal). */
export function toA2AError(error: unknown): unknown {
  if (!RunInputError.isInstance(error)) return error;
  const options = { message: `${error.code}: ${error.message}`, metadata: { code: error.code } };
  switch (error.code) {
    case 'unknown_run':
      return new TaskNotFoundError(options);
    case 'closed':
      return new UnsupportedOperationError(options);
    default:
      return new RequestMalformedError(options);
  }
}

/** Whether a ListTasks status names a real state to filter by. */
function isTaskStateFilter(status: unknown): boolean {
  return (
    typeof status === 'number' &&
    status !== TaskState.TASK_STATE_UNSPECIFIED &&
    (Object.values(TaskState) as unknown[]).includes(status) &&
    status >= 0
  );
}

/** Why a message part is not read, naming what was sent. */
function partRefusal(index: number, kind: string | undefined): string {
  const read =
    'This agent reads text and data parts: { "text": "…" } or { "data": { … } } (A2A 1.0; in @a2a-js/sdk 1.3 types, content: { $case: "text", value } or { $case: "data", value }).';
  return kind === undefined
    ? `Part ${index} has no content the agent knows (the typed client sends a part's \`content\`: a plain { text } object there arrives empty). ${read}`
    : `Part ${index} is a ${kind === 'raw' ? 'file (raw bytes)' : 'URL'}, which this agent does not read. ${read}`;
}
