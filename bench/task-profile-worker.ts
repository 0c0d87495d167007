/**
 * The worker process of bench/workflow-task-profile.ts: two Cairn workers (the profile agent's
 * tools, the model activity, no run store), one on `<TASK_QUEUE>-cairn` with agentRun's bundle and
 * one on `<TASK_QUEUE>-plain` with the plain loop's, in a process of its own so that its CPU, and
 * its `--cpu-prof` profiles (one per thread: the main thread, and each worker's workflow thread),
 * are the workers' alone. The model answers from PROFILE_SCRIPT at the step after the
 * replies the transcript holds, so it keeps no state per run and serves both loops alike.
 *
 * Over IPC the parent sends `{ mark: label }`, answered with `{ mark, at, cpu }` (the moment on the
 * profiler's clock, in µs, and this process's CPU so far), and `{ stop: true }`, after which the
 * worker shuts down and the process exits (writing its profiles). Prints `worker ready` once
 * polling. Settings from the environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE,
 * CAIRN_BUNDLE, PLAIN_BUNDLE.
 * Run by bench/workflow-task-profile.ts (node --import tsx). Node-only.
 */
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { GenerateInput, ModelClient } from '../activities/model/model-client.js';
import type { ModelOutcome } from '../shared/model/model-response.js';
import { createCairnWorker } from '../runtime/worker.js';
import { repliesIn } from '../testing/script-position.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { scriptStep, type Script } from '../testing/script-steps.js';
import { fetchRecord, recordId } from './bench-agent.js';
import { profileAgent, scheduleDelivery } from './task-profile-agent.js';

const env = (name: string): string => process.env[name] ?? (console.error(`${name} is not set`), process.exit(2));

/** Step k answers a transcript holding k replies: turn 1 a batch of 3 (one asks a person), turn 2 one call, turn 3 text. */
export const PROFILE_SCRIPT: Script = [
  scriptStep.calls([
    { name: fetchRecord.name, arguments: { id: recordId(1, 1) } },
    { name: fetchRecord.name, arguments: { id: recordId(1, 2) } },
    { name: scheduleDelivery.name, arguments: { id: recordId(1, 3) } },
  ]),
  scriptStep.call(fetchRecord.name, { id: recordId(2, 1) }),
  scriptStep.text('Done: records fetched, delivery scheduled.'),
];

/** What the worker answers a mark with. */
export interface WorkerMark {
  readonly mark: string;
  /** On the clock `--cpu-prof` timestamps with (µs). */
  readonly at: number;
  /** process.cpuUsage() so far, µs. */
  readonly cpu: { readonly user: number; readonly system: number };
}

const model: ModelClient = {
  generate(input: GenerateInput): Promise<ModelOutcome> {
    const step = repliesIn(input.messages);
    return new ScriptedModel('task-profile', PROFILE_SCRIPT.slice(step), { record: false }).generate(input);
  },
};

if (process.env.CAIRN_BUNDLE) {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') });
  const namespace = env('TEMPORAL_NAMESPACE');
  const client = new Client({ connection, namespace });
  // One worker per bundle, each with its own workflow thread; the same activities on both.
  const workers = await Promise.all(
    (['cairn', 'plain'] as const).map((loop) =>
      createCairnWorker({
        connection,
        client,
        namespace,
        taskQueue: `${env('TASK_QUEUE')}-${loop}`,
        agents: [profileAgent],
        resolveModel: () => model,
        workflowBundle: { codePath: env(loop === 'cairn' ? 'CAIRN_BUNDLE' : 'PLAIN_BUNDLE') },
      }),
    ),
  );
  process.on('message', (message: { mark?: string; stop?: boolean }) => {
    if (message.mark !== undefined)
      // process.hrtime is the monotonic clock V8's profiler stamps its samples with.
      process.send?.({
        mark: message.mark,
        at: Number(process.hrtime.bigint() / 1_000n),
        cpu: process.cpuUsage(),
      } satisfies WorkerMark);
    if (message.stop) for (const worker of workers) worker.shutdown();
  });
  console.log('worker ready');
  await Promise.all(workers.map((worker) => worker.run()));
  await connection.close();
  process.disconnect?.();
}
