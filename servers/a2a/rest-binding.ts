/**
 * A2A 1.0's HTTP+JSON binding, on the same request handler (and so the same runs) as JSON-RPC, at
 * the agent's URL: `POST message:send`, `POST message:stream` (SSE), `GET tasks`, `GET tasks/{id}`,
 * `POST tasks/{id}:cancel`, `GET|POST tasks/{id}:subscribe` (SSE), `GET extendedAgentCard`, and a
 * task's push-notification configs (`POST|GET tasks/{id}/pushNotificationConfigs`,
 * `GET|DELETE …/{configId}`). Bodies are the protocol's JSON
 * (the SDK's `fromJSON`/`toJSON`); errors are `{ error: { code, status, message, details } }`
 * with the A2A ErrorInfo, as the SDK's RestTransport reads them. Node-only (client side).
 */
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  AgentCard,
  type Message,
} from '@a2a-js/sdk';
import { RequestMalformedError, restStatusFor, toRestErrorBody } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { HttpError } from '../http/http-error.js';
import { readBoundedText } from '../http/read-json-body.js';
import { AUTH_ERROR_KEY } from './a2a-request-handler.js';

/** The headers of both bindings' JSON answers and event streams (no proxy buffers a stream). */
export const JSON_HEADERS = { 'content-type': 'application/json' };
export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** True for a path of this binding (below the agent's URL). */
export function isRestPath(rest: string): boolean {
  return (
    rest === 'message:send' ||
    rest === 'message:stream' ||
    rest === 'extendedAgentCard' ||
    rest === 'tasks' ||
    rest.startsWith('tasks/')
  );
}

/** Answers one request of the binding; `rest` is the path below the agent's URL. */
export async function restCall(
  request: Request,
  rest: string,
  url: URL,
  handler: A2ARequestHandler,
  context: ServerCallContext,
  maxBodyBytes: number,
): Promise<Response> {
  try {
    const method = request.method;
    if (rest === 'message:send' || rest === 'message:stream') {
      if (method !== 'POST') return notFound(method, rest);
      const params = SendMessageRequest.fromJSON(await jsonBody(request, maxBodyBytes));
      if (rest === 'message:stream') return await stream(handler.sendMessageStream(params, context), context);
      const result: Message | Task = await handler.sendMessage(params, context);
      const payload =
        'status' in result ? { $case: 'task' as const, value: result } : { $case: 'message' as const, value: result };
      return ok(context, SendMessageResponse.toJSON({ payload }), 200);
    }
    if (rest === 'extendedAgentCard' && method === 'GET')
      return ok(context, AgentCard.toJSON(await handler.getAuthenticatedExtendedAgentCard({ tenant: '' }, context)));
    if (rest === 'tasks' && method === 'GET') {
      const query = Object.fromEntries(url.searchParams);
      const params = ListTasksRequest.fromJSON({
        ...query,
        ...(query.pageSize !== undefined && { pageSize: count(query.pageSize, 'pageSize') }),
        ...(query.historyLength !== undefined && { historyLength: count(query.historyLength, 'historyLength') }),
        ...(query.includeArtifacts !== undefined && { includeArtifacts: query.includeArtifacts === 'true' }),
      });
      return ok(context, ListTasksResponse.toJSON(await handler.listTasks(params, context)));
    }
    const task = /^tasks\/([^/:]+)(?::(cancel|subscribe))?(\/pushNotificationConfigs(?:\/([^/]+))?)?$/.exec(rest);
    if (!task) return notFound(method, rest);
    const [, id = '', verb, push, configId] = task;
    if (push && !verb) return await pushConfigs(request, method, id, configId, handler, context, maxBodyBytes);
    if (verb === 'cancel' && method === 'POST')
      return ok(context, Task.toJSON(await handler.cancelTask(CancelTaskRequest.fromJSON({ id }), context)));
    if (verb === 'subscribe' && (method === 'GET' || method === 'POST'))
      return await stream(handler.resubscribe(SubscribeToTaskRequest.fromJSON({ id }), context), context);
    if (verb === undefined && method === 'GET') {
      const history = url.searchParams.get('historyLength');
      const params = GetTaskRequest.fromJSON({
        id,
        ...(history !== null && { historyLength: count(history, 'historyLength') }),
      });
      return ok(context, Task.toJSON(await handler.getTask(params, context)));
    }
    return notFound(method, rest);
  } catch (error) {
    return errorResponse(context, error);
  }
}

/** `tasks/{id}/pushNotificationConfigs[/{configId}]`: create (POST), list and get (GET), delete (DELETE). */
async function pushConfigs(
  request: Request,
  method: string,
  taskId: string,
  configId: string | undefined,
  handler: A2ARequestHandler,
  context: ServerCallContext,
  maxBodyBytes: number,
): Promise<Response> {
  const where = `tasks/${taskId}/pushNotificationConfigs${configId ? `/${configId}` : ''}`;
  if (configId === undefined && method === 'POST') {
    const body = TaskPushNotificationConfig.fromJSON(await jsonBody(request, maxBodyBytes));
    const created = await handler.createTaskPushNotificationConfig({ ...body, taskId }, context);
    return ok(context, TaskPushNotificationConfig.toJSON(created));
  }
  if (configId === undefined && method === 'GET') {
    const params = ListTaskPushNotificationConfigsRequest.fromJSON({ taskId });
    return ok(
      context,
      ListTaskPushNotificationConfigsResponse.toJSON(await handler.listTaskPushNotificationConfigs(params, context)),
    );
  }
  if (configId !== undefined && method === 'GET')
    return ok(
      context,
      TaskPushNotificationConfig.toJSON(
        await handler.getTaskPushNotificationConfig(
          GetTaskPushNotificationConfigRequest.fromJSON({ taskId, id: configId }),
          context,
        ),
      ),
    );
  if (configId !== undefined && method === 'DELETE') {
    await handler.deleteTaskPushNotificationConfig(
      DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId, id: configId }),
      context,
    );
    return ok(context, {});
  }
  return notFound(method, where);
}

/** A whole number from a query parameter; RequestMalformed otherwise. */
function count(text: string, name: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(n) || n < 0)
    throw new RequestMalformedError(`${name} is a whole number, not "${text.slice(0, 40)}".`);
  return n;
}

async function jsonBody(request: Request, maxBodyBytes: number): Promise<unknown> {
  const text = await readBoundedText(request, maxBodyBytes);
  if (text === undefined)
    throw new HttpError(413, 'body_too_large', `The request is larger than ${maxBodyBytes} bytes.`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RequestMalformedError('The request is not valid JSON.');
  }
}

function ok(context: ServerCallContext, body: unknown, status = 200): Response {
  return refusal(context) ?? Response.json(body, { status, headers: JSON_HEADERS });
}

function notFound(method: string, rest: string): Response {
  return restError(404, 'NOT_FOUND', `No endpoint ${method} ${rest}.`);
}

/** The refusal `authorize` recorded (401 with its challenge, 403, or a tenant's 429), if any. */
function refusal(context: ServerCallContext): Response | undefined {
  const error = context.state.get(AUTH_ERROR_KEY);
  if (error === undefined) return undefined;
  if (HttpError.isInstance(error))
    return restError(
      error.status,
      error.status === 429 ? 'RESOURCE_EXHAUSTED' : 'PERMISSION_DENIED',
      error.message,
      error.headers,
    );
  return restError(403, 'PERMISSION_DENIED', 'Not authorized.');
}

function errorResponse(context: ServerCallContext, error: unknown): Response {
  const refused = refusal(context);
  if (refused) return refused;
  if (HttpError.isInstance(error)) return restError(error.status, 'INVALID_ARGUMENT', error.message, error.headers);
  const status = restStatusFor(error);
  return Response.json(toRestErrorBody(error, status), { status, headers: JSON_HEADERS });
}

function restError(status: number, name: string, message: string, headers: Record<string, string> = {}): Response {
  return Response.json(
    { error: { code: status, status: name, message, details: [] } },
    { status, headers: { ...JSON_HEADERS, ...headers } },
  );
}

/** An SSE stream of StreamResponse JSON; the first event's error (an unknown task…) is an error response instead. */
async function stream(
  events: AsyncGenerator<StreamResponse, void, undefined>,
  context: ServerCallContext,
): Promise<Response> {
  const first = await events.next();
  const refused = refusal(context);
  if (refused) {
    await events.return(undefined);
    return refused;
  }
  const encoder = new TextEncoder();
  const frame = (event: StreamResponse) => encoder.encode(`data: ${JSON.stringify(StreamResponse.toJSON(event))}\n\n`);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.done) controller.close();
      else controller.enqueue(frame(first.value));
    },
    async pull(controller) {
      try {
        const next = await events.next();
        if (next.done) controller.close();
        else controller.enqueue(frame(next.value));
      } catch (error) {
        const status = restStatusFor(error);
        controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify(toRestErrorBody(error, status))}\n\n`));
        controller.close();
      }
    },
    async cancel() {
      await events.return(undefined).catch(() => undefined);
    },
  });
  return new Response(body, { headers: SSE_HEADERS });
}
