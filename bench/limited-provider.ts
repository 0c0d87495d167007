/**
 * The bench's provider (bench/provider-limits.ts): a local OpenAI-compatible HTTP server that
 * allows R requests per sliding second and T tokens per sliding minute, else 429 with
 * `retry-after: 1`. Runs in its own process by default (`providerProcess`), as a real provider
 * is elsewhere: one in the worker's own process stamps arrivals when that process gets the CPU, so
 * a busy worker's stalls would bunch the other workers' calls as it reads them. Node-only.
 */
import { fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchRecord } from './bench-agent.js';

export const TOOL_TURNS = 2;

/** What the provider saw. */
export interface ProviderStats {
  readonly accepted: number;
  readonly refused: number;
  readonly firstAt: number;
  readonly lastAt: number;
  /** The time requests spent at the provider, summed (from the request to the end of its answer). */
  readonly inFlightMs: number;
  /** Every call the provider saw: when, whether it took it, and which model turn of its run it was (0-based). */
  readonly calls: readonly { at: number; ok: boolean; turn: number }[];
}

/** The provider: R requests per sliding second and T tokens per sliding minute, else 429. */
export class LimitedProvider {
  accepted = 0;
  refused = 0;
  firstAt = 0;
  lastAt = 0;
  /** The time requests spent at the provider, summed (from the request to the end of its answer). */
  inFlightMs = 0;
  /** Every call the provider saw: when, whether it took it, and which model turn of its run it was (0-based). */
  readonly calls: { at: number; ok: boolean; turn: number }[] = [];
  readonly #requests: number[] = [];
  readonly #tokens: { at: number; n: number }[] = [];
  readonly #server: Server;

  constructor(
    readonly perSecond: number,
    readonly tokensPerMinute: number,
  ) {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      const began = performance.now();
      response.once('finish', () => (this.inFlightMs += performance.now() - began));
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const now = Date.now();
        while (this.#requests.length > 0 && this.#requests[0]! <= now - 1_000) this.#requests.shift();
        while (this.#tokens.length > 0 && this.#tokens[0]!.at <= now - 60_000) this.#tokens.shift();
        const tokensUsed = this.#tokens.reduce((sum, t) => sum + t.n, 0);
        const body = JSON.parse(text) as { messages: { role: string }[] };
        const done = body.messages.filter((m) => m.role === 'tool').length;
        if (this.#requests.length >= this.perSecond || tokensUsed >= this.tokensPerMinute) {
          this.refused++;
          this.calls.push({ at: now, ok: false, turn: done });
          response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
          response.end(
            JSON.stringify({
              error: { message: 'Rate limit reached', type: 'rate_limit_error', code: 'rate_limit_exceeded' },
            }),
          );
          return;
        }
        this.accepted++;
        this.firstAt ||= now;
        this.lastAt = now;
        this.#requests.push(now);
        this.calls.push({ at: now, ok: true, turn: done });
        const promptTokens = Math.ceil(text.length / 4);
        this.#tokens.push({ at: now, n: promptTokens + 20 });
        const message =
          done < TOOL_TURNS
            ? {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: `call_${done + 1}`,
                    type: 'function',
                    function: { name: fetchRecord.name, arguments: JSON.stringify({ id: `R-${done + 1}-1` }) },
                  },
                ],
              }
            : { role: 'assistant', content: 'Done: every record fetched.' };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'chatcmpl-bench',
            object: 'chat.completion',
            created: 1_700_000_000,
            model: 'bench-model',
            choices: [{ index: 0, message, finish_reason: done < TOOL_TURNS ? 'tool_calls' : 'stop' }],
            usage: { prompt_tokens: promptTokens, completion_tokens: 20, total_tokens: promptTokens + 20 },
          }),
        );
      });
    });
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  stats(): ProviderStats {
    const { accepted, refused, firstAt, lastAt, inFlightMs, calls } = this;
    return { accepted, refused, firstAt, lastAt, inFlightMs, calls };
  }
}

/** A provider in a process of its own (this file run as a script), or in this one: its URL, and its figures at the end. */
export async function startProvider(
  perSecond: number,
  tokensPerMinute: number,
  own = true,
): Promise<{ readonly url: string; finish(): Promise<ProviderStats> }> {
  if (!own) {
    const provider = await new LimitedProvider(perSecond, tokensPerMinute).start();
    return { url: provider.url, finish: async () => (await provider.close(), provider.stats()) };
  }
  const child = fork(new URL(import.meta.url).pathname, [String(perSecond), String(tokensPerMinute)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`the provider process exited (${code})`)));
  });
  return {
    url,
    finish: () =>
      new Promise<ProviderStats>((resolve) => {
        child.once('message', (m) => {
          child.kill();
          resolve((m as { stats: ProviderStats }).stats);
        });
        child.send('finish');
      }),
  };
}

// Run as a script: the provider in its own process, its URL and then its figures sent to the parent.
if (process.argv[1] === new URL(import.meta.url).pathname && process.send) {
  const provider = await new LimitedProvider(Number(process.argv[2]), Number(process.argv[3])).start();
  process.send({ url: provider.url });
  process.on('message', async () => {
    await provider.close();
    process.send!({ stats: provider.stats() });
  });
}
