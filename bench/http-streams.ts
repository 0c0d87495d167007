/**
 * Issue #16's HTTP figures: how soon a run's events reach an SSE client of the handler after the
 * workflow records them (p50/p99 of arrival time minus the event's workflow time, on the embedded
 * server, beside the same events read straight from the client API), and what 1,000 SSE streams
 * held open on one handler process cost (memory per stream; clients in the same process, so the
 * figure covers both ends). Not part of `npm run bench`: `npx tsx bench/http-streams.ts [turns] [streams]`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import { CairnClient } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { toNodeListener } from '../servers/http/node-listener.js';
import type { AgentRunInput } from '../workflows/contract/index.js';
import { BENCH_PROMPT, benchAgent } from './bench-agent.js';
import { runAlone, type BenchEnv } from './bench-env.js';
import { toolTurnsScript } from './bench-script.js';
import { figure, table } from './report.js';
import { sseMessages } from '../test/support/http.js';

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Reads an SSE response, calling `each` with every event's JSON, until `event: end` or `each` says stop. */
async function readSse(
  response: Response,
  each: (event: { at: number; type: string; offset: number }) => unknown,
): Promise<void> {
  for await (const message of sseMessages(response))
    if (message.event === 'end' || each(JSON.parse(message.data)) === true) return;
}

export async function httpStreamsReport(
  env: BenchEnv,
  turns = Number(process.argv[2] ?? 200),
  streams = Number(process.argv[3] ?? 1_000),
): Promise<string> {
  const handler = createCairnHttpHandler({ client: new CairnClient({ client: env.client }), maxInFlight: 10_000 });
  const server = createServer(toNodeListener(handler));
  server.maxConnections = streams * 2;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', 4_096, resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const input = (model: string): AgentRunInput => ({
    agent: benchAgent.name,
    prompt: BENCH_PROMPT,
    model,
    policy: { maxTurns: turns + 1, maxToolCalls: turns },
  });
  const lines: string[] = [];
  try {
    // 1. Latency: one SSE client of the handler and one client-API reader follow the same run.
    const overHttp: number[] = [];
    const direct: number[] = [];
    let followers: Promise<unknown>[] = [];
    await env.run('agentRun', toolTurnsScript(turns), input, {
      started: (workflowId) => {
        followers = [
          (async () => {
            for (;;) {
              const response = await fetch(`${base}/runs/${encodeURIComponent(workflowId)}/events`);
              if (response.status === 200) return readSse(response, (e) => void overHttp.push(Date.now() - e.at));
              await response.body?.cancel();
            }
          })(),
          (async () => {
            for await (const e of new AgentRunHandle(env.client, workflowId).events()) direct.push(Date.now() - e.at);
          })(),
        ];
      },
    });
    await Promise.all(followers);
    lines.push(
      `Event delivery: ${turns} model turns (${overHttp.length} events), arrival time minus the event's workflow time`,
      table(
        ['reader', 'events', 'p50 ms', 'p99 ms'],
        [
          [
            'SSE via the HTTP handler',
            String(overHttp.length),
            figure(percentile(overHttp, 50)),
            figure(percentile(overHttp, 99)),
          ],
          [
            'client API (run.events)',
            String(direct.length),
            figure(percentile(direct, 50)),
            figure(percentile(direct, 99)),
          ],
        ],
      ),
      `ratio p50 SSE / client API: ${figure(percentile(overHttp, 50) / Math.max(1, percentile(direct, 50)), 2)}×`,
      '',
    );

    // 2. Many streams: a paused run (it waits), `streams` SSE clients reading it from offset 0.
    const ids: string[] = [];
    const holding = env.execute('agentRun', toolTurnsScript(200), input, { started: (id) => void ids.push(id) });
    while (ids.length === 0) await new Promise((r) => setTimeout(r, 20));
    const run = new AgentRunHandle(env.client, ids[0]!);
    await run.pause();
    globalThis.gc?.();
    const before = process.memoryUsage();
    const aborts: AbortController[] = [];
    let first = 0;
    const started = performance.now();
    const open = async () => {
      const abort = new AbortController();
      aborts.push(abort);
      let counted = false;
      try {
        const response = await fetch(`${base}/runs/${encodeURIComponent(run.workflowId)}/events`, {
          signal: abort.signal,
        });
        await readSse(response, () => {
          if (!counted) first++;
          counted = true;
        });
      } catch (error) {
        if (!abort.signal.aborted) throw error;
      }
    };
    // Opened a hundred at a time, as clients arrive, not in one SYN flood.
    const reading: Promise<void>[] = [];
    for (let i = 0; i < streams; i++) {
      reading.push(open());
      if (i % 100 === 99) while (first < i - 50) await new Promise((r) => setTimeout(r, 20));
    }
    while (first < streams) await new Promise((r) => setTimeout(r, 50));
    const openMs = performance.now() - started;
    globalThis.gc?.();
    const after = process.memoryUsage();
    const polls = ((await run.workflow.fetchHistory()).events ?? []).filter(
      (e) =>
        e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ===
        '__temporal_workflow_stream_poll',
    ).length;
    lines.push(
      `${streams} SSE streams open on one run, one handler process (all had their first event after ${figure(openMs / 1000, 1)} s)`,
      table(
        ['memory', 'before', 'with streams', 'per stream'],
        [
          [
            'RSS MB',
            figure(before.rss / 2 ** 20),
            figure(after.rss / 2 ** 20),
            `${figure((after.rss - before.rss) / streams / 1024)} KB`,
          ],
          [
            'heap used MB',
            figure(before.heapUsed / 2 ** 20),
            figure(after.heapUsed / 2 ** 20),
            `${figure((after.heapUsed - before.heapUsed) / streams / 1024)} KB`,
          ],
        ],
      ),
      `stream polls the run took while they opened (one shared subscription): ${polls}${globalThis.gc ? '' : ' (run with node --expose-gc for steadier memory figures)'}`,
    );
    for (const a of aborts) a.abort();
    await Promise.all(reading);
    await run.resume();
    await holding;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return lines.join('\n');
}

await runAlone(import.meta.url, (env) => httpStreamsReport(env));
