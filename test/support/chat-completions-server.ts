/**
 * A real local HTTP server speaking the OpenAI Chat Completions protocol (non-streaming), driven
 * by a queue of canned replies. Tests point a real provider at it to check how Cairn handles what
 * providers actually send. Binds 127.0.0.1 on a free port; sends nothing anywhere else.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One canned HTTP answer. */
export interface CannedReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** Wait this long before answering (to test timeouts and aborted requests). */
  readonly delayMs?: number;
  /** Answer once this settles: the test does something while the call is in flight, before the run goes on. */
  readonly after?: Promise<unknown>;
}

/** A request the server received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it was not JSON). */
  readonly body: unknown;
}

/** A tool call in a canned completion; `arguments` is sent verbatim, malformed or not. */
export interface CannedToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** A 200 chat completion with the given message parts. */
export function completion(message: {
  readonly content?: string | null;
  readonly reasoning_content?: string;
  readonly toolCalls?: readonly CannedToolCall[];
  readonly finishReason?: string;
}): CannedReply {
  const toolCalls = message.toolCalls ?? [];
  return {
    status: 200,
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'test-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: message.content ?? null,
            ...(message.reasoning_content !== undefined && { reasoning_content: message.reasoning_content }),
            ...(toolCalls.length > 0 && {
              tool_calls: toolCalls.map((call) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: call.arguments },
              })),
            }),
          },
          finish_reason: message.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
        },
      ],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    },
  };
}

/** An OpenAI-style error answer. */
export function errorReply(status: number, message: string, headers: Record<string, string> = {}): CannedReply {
  return { status, headers, body: { error: { message, type: 'test_error', code: null } } };
}

/** The server: queue replies with `enqueue`, read `requests`, then `close()`. */
export class ChatCompletionsServer {
  readonly requests: ReceivedRequest[] = [];
  /** Requests whose client went away before the answer was sent (an aborted fetch). */
  aborted = 0;
  readonly #queue: CannedReply[] = [];
  readonly #server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = parseJson(text);
      this.requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
      const reply = this.#reply(request.method, request.url, body);
      const send = () => {
        response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        response.end(JSON.stringify(reply.body));
      };
      if (!reply.delayMs && !reply.after) return send();
      let timer: NodeJS.Timeout | undefined;
      const later = () => {
        if (!response.destroyed) timer = setTimeout(send, reply.delayMs ?? 0);
      };
      if (reply.after) void reply.after.then(later, later);
      else later();
      response.on('close', () => {
        if (response.writableFinished) return;
        clearTimeout(timer);
        this.aborted++;
      });
    });
  });

  /** The base URL to give a provider, e.g. `http://127.0.0.1:54321/v1`. Valid after `start()`. */
  get url(): string {
    const address = this.#server.address() as AddressInfo | null;
    if (!address) throw new Error('ChatCompletionsServer: call start() first');
    return `http://127.0.0.1:${address.port}/v1`;
  }

  /** Replies not yet sent. */
  get pending(): number {
    return this.#queue.length;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.#server.close((error) => (error ? reject(error) : resolve())));
  }

  /** Queues replies, answered one per request in order. */
  enqueue(...replies: CannedReply[]): void {
    this.#queue.push(...replies);
  }

  #reply(method: string | undefined, path: string | undefined, body: unknown): CannedReply {
    if (method !== 'POST' || path !== '/v1/chat/completions') return errorReply(404, `no route ${method} ${path}`);
    // doGenerate never streams; a streaming request means the adapter changed and must be noticed.
    if (typeof body === 'object' && body !== null && 'stream' in body && body.stream === true) {
      return errorReply(400, 'chat-completions-server: streaming is not supported');
    }
    // A 418 is neither retried nor mistaken for a real answer: a test that sends too much fails.
    return this.#queue.shift() ?? errorReply(418, 'chat-completions-server: no canned reply queued');
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
