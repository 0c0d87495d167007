/**
 * Issue #21, live model turns: for streaming off, the durable transport and the ephemeral one
 * (Redis), how long a piece of the model's answer takes to reach a reader following the run
 * (`run.events()`, merged with a `redisLiveSource` subscription for the ephemeral row), p50/p99
 * over its pieces, and the history bytes a turn adds, for a 2 KB reply in 50 deltas (a scripted
 * model sending a piece every 20 ms, as a provider at ~50 pieces/s). Streaming off, a piece
 * reaches the reader with the turn's `model_turn` event; durable, with its batch's publish Update;
 * ephemeral, with its batch's XADD. History bytes: a one-turn run each way, with nobody reading and
 * with a reader polling (its poll answers enter history too); the difference from streaming off is
 * what streaming costs per turn. The ephemeral row needs Redis at REDIS_URL (default
 * redis://127.0.0.1:6379) and says so when there is none. Alone: `npx tsx bench/live-streaming.ts`.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { GenerateInput, ModelClient } from '../activities/model/model-client.js';
import { redisTransport } from '../activities/live/redis-transport.js';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import { mergeLive } from '../client/merge-live.js';
import { redisLiveSource } from '../client/redis-live-source.js';
import { startEmbeddedServer } from '../runtime/embedded-server.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { createCairnWorker } from '../runtime/worker.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep } from '../testing/script-steps.js';
import { BENCH_PROMPT, benchAgent } from './bench-agent.js';
import { historyStats } from './history-stats.js';
import { figure, table } from './report.js';

const REPLY = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(40).slice(0, 2_048);
const PIECES = 50;
const INTERVAL_MS = 20;
const RUNS = 5;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A scripted reply streamed piece by piece; records when each piece left the model, streaming or not. */
function timedModel(sent: number[]): ModelClient {
  const scripted = new ScriptedModel(`live-${randomUUID()}`, [scriptStep.text(REPLY)], {
    record: false,
    streaming: { pieces: PIECES, intervalMs: INTERVAL_MS },
  });
  return {
    generate: (input: GenerateInput) =>
      scripted.generate({ ...input, onDelta: (delta) => (sent.push(Date.now()), input.onDelta?.(delta)) }),
  };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Why Redis cannot be reached, or undefined when it answers. */
async function redisUnreachable(): Promise<string | undefined> {
  const { createClient } = await import('redis');
  const client = createClient({ url: REDIS_URL, socket: { connectTimeout: 2_000, reconnectStrategy: false } });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (err) {
    return String(err);
  } finally {
    client.destroy();
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const [server, bundle] = await Promise.all([
    startEmbeddedServer({ log: () => {} }),
    bundleWorkflows(join(PACKAGE_ROOT, 'bench', 'workflows.ts')),
  ]);
  const rows: string[][] = [];
  let offBytes = 0;
  let offRead = 0;
  const keyPrefix = `cairn:bench:${randomUUID().slice(0, 8)}:`;
  const redisDown = await redisUnreachable();
  const source = redisLiveSource({ url: REDIS_URL, keyPrefix });
  for (const mode of ['off', 'durable', 'ephemeral'] as const) {
    if (mode === 'ephemeral' && redisDown) {
      rows.push(['ephemeral', `no Redis at ${REDIS_URL}`, '', '', '', '', '', '', '']);
      continue;
    }
    const models: Record<string, ModelClient> = {};
    // Named alike in every mode: the queue name is in several events, and bytes are compared across modes.
    const taskQueue = `live-${randomUUID()}`;
    const worker = await createCairnWorker({
      connection: server.workerConnection,
      client: server.client,
      namespace: server.namespace,
      taskQueue,
      agents: [benchAgent],
      resolveModel: (spec) => models[spec.replace(/^scripted:/, '')]!,
      workflowBundle: { code: bundle.code },
      modelActivity: {
        streaming: mode === 'ephemeral' ? redisTransport({ url: REDIS_URL, keyPrefix }) : mode === 'durable',
      },
    });
    const running = worker.run();
    const latencies: number[] = [];
    const bytes: number[] = [];
    const events: number[] = [];
    const withReader: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const sent: number[] = [];
      const name = randomUUID();
      models[name] = timedModel(sent);
      const handle = await server.client.workflow.start('agentRun', {
        taskQueue,
        workflowId: `live-${name}`,
        args: [{ agent: benchAgent.name, prompt: BENCH_PROMPT, model: `scripted:${name}` }],
      });
      // Piece i reaches the reader once the text it has read is as long as pieces 0..i.
      const size = Math.ceil(REPLY.length / PIECES);
      let read = 0;
      let next = 0;
      const run = new AgentRunHandle(server.client, handle.workflowId);
      const followed =
        mode === 'ephemeral'
          ? mergeLive(run.events(), (signal) => source.subscribe(handle.workflowId, { signal }))
          : run.events();
      for await (const event of followed) {
        // Streaming off, the whole reply arrives with model_turn (whose event text is a preview).
        read +=
          event.type === 'model_delta'
            ? (event.text ?? '').length
            : event.type === 'model_turn' && read === 0
              ? REPLY.length
              : 0;
        for (; next < sent.length && Math.min((next + 1) * size, REPLY.length) <= read; next++)
          latencies.push(Date.now() - sent[next]!);
      }
      await handle.result();
      withReader.push((await historyStats(server.client, handle.workflowId, handle.firstExecutionRunId)).bytes);
      // The same turn with nobody reading: what the transport itself costs.
      const alone = randomUUID();
      models[alone] = timedModel([]);
      const quiet = await server.client.workflow.start('agentRun', {
        taskQueue,
        workflowId: `live-${alone}`,
        args: [{ agent: benchAgent.name, prompt: BENCH_PROMPT, model: `scripted:${alone}` }],
      });
      await quiet.result();
      const stats = await historyStats(server.client, quiet.workflowId, quiet.firstExecutionRunId);
      bytes.push(stats.bytes);
      events.push(stats.events);
    }
    worker.shutdown();
    await running;
    const perRun = Math.min(...bytes);
    const read = Math.min(...withReader);
    if (mode === 'off') [offBytes, offRead] = [perRun, read];
    const added = perRun - offBytes;
    rows.push([
      mode,
      figure(percentile(latencies, 50), 0),
      figure(percentile(latencies, 99), 0),
      String(Math.min(...events)),
      String(perRun),
      String(added),
      figure(added / REPLY.length, 2),
      String(read - offRead),
      figure((read - offRead) / REPLY.length, 2),
    ]);
  }
  console.log(
    `Live model turns: a ${REPLY.length}-byte reply in ${PIECES} pieces, one every ${INTERVAL_MS} ms; ${RUNS} runs each; embedded dev server.`,
  );
  console.log(
    table(
      [
        'streaming',
        'token→client p50 ms',
        'p99 ms',
        'history events (1 turn)',
        'history bytes',
        'added, no reader',
        '÷ reply bytes',
        'added, a reader polling',
        '÷ reply bytes',
      ],
      rows,
    ),
  );
  await server.close();
}

await main();
