/**
 * `npm run demo`: the embedded dev server (or TEMPORAL_ADDRESS), a worker, and the order-support
 * agent mending every failure class, printed as a live transcript with the planner's decisions.
 * In a terminal it asks the clarification and the review; `--yes` (or no terminal) answers both.
 */
import { createInterface } from 'node:readline/promises';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { CairnClient, searchAttributesHint } from '../client/cairn-client.js';
import { writeAgentsEntry } from '../runtime/agents-entry.js';
import { connectFromEnvironment, hasExternalServer, type Connected } from '../runtime/connection.js';
import { DatabaseInUseError } from '../runtime/dev-server-lock.js';
import { PortInUseError, startEmbeddedServer } from '../runtime/embedded-server.js';
import { codecFromEnvironment } from '../runtime/payload-codec.js';
import { runUrl } from '../runtime/temporal-target.js';
import { createCairnWorker } from '../runtime/worker.js';
import { ordersAgent } from '../examples/orders/agent.js';
import { DEMO_PROMPT, demoScripts } from '../examples/orders/demo-script.js';
import { callsMade, formatMessage } from './format.js';
import { CAIRN_HERE } from './invocation.js';
import { installRuntime } from './worker-process.js';
import type { StepAction } from '../workflows/contract/index.js';

export async function runDemo(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      yes: { type: 'boolean', short: 'y' },
      keep: { type: 'boolean' },
      model: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(
      'Usage: cairn demo [--yes] [--keep] [--model <spec>]\n\nRuns the order-support agent on the embedded dev server (or TEMPORAL_ADDRESS).\n' +
        '  --yes          answer the clarification and approve the review without asking (without a terminal it does so too)\n' +
        '  --keep         keep the dev server, its UI and the worker up after the run, until Ctrl-C\n' +
        '  --model <spec> a real model instead of the script, e.g. openai:gpt-4.1-mini',
    );
    return 0;
  }
  installRuntime(); // the SDK's logs at CAIRN_LOG_LEVEL (default WARN), so the story is not buried
  const interactive = !values.yes && process.stdin.isTTY === true;
  // Who answered, when nobody was asked: --yes, or no terminal to ask on.
  const auto = values.yes ? '(--yes)' : '(no terminal: answered automatically)';
  const log = (line: string) => console.log(line);

  // CAIRN_CODEC_KEYS set: every payload is encrypted (docs/encryption.md), by the worker and the client alike.
  const codec = codecFromEnvironment();
  const external = hasExternalServer();
  const target: DemoTarget = external ? await connectFromEnvironment() : await startDevServer(log);
  const client = codec
    ? new Client({
        connection: target.client.connection,
        namespace: target.namespace,
        dataConverter: { payloadCodecs: [codec] },
      })
    : target.client;
  if (codec)
    log(
      `Payloads encrypted with key "${codec.currentKeyId}" (CAIRN_CODEC_KEYS); \`cairn codec-server\` decrypts them for the Temporal UI.`,
    );
  const taskQueue = `cairn-demo-${process.pid}`;
  // The demo's own worker: the examples' orders agent, with its scripted model registered.
  const worker = await createCairnWorker({
    connection: target.workerConnection,
    client,
    ...(codec && { worker: { dataConverter: { payloadCodecs: [codec] } } }),
    namespace: target.namespace,
    taskQueue,
    agents: [ordersAgent],
    models: { scripts: demoScripts() },
    workflowsPath: await writeAgentsEntry(fileURLToPath(new URL('../examples/orders/agent.js', import.meta.url))),
  });
  const running = worker.run();
  try {
    const workflowId = `cairn-demo-${Date.now().toString(36)}`;
    const cairnClient = new CairnClient({ client, taskQueue });
    const run = await cairnClient.start({
      agent: 'orders',
      prompt: DEMO_PROMPT,
      workflowId,
      ...(values.model ? { model: values.model } : {}),
    });
    // On a server of yours: set when registered (the default 'auto'), else say how.
    const missing = hasExternalServer() ? await cairnClient.missingSearchAttributes() : [];
    if (missing.length > 0) log(searchAttributesHint(target.namespace, missing));
    log(`\nRun ${workflowId} started. Temporal UI: ${runUrl(target, workflowId) ?? '(set TEMPORAL_UI_URL)'}\n`);
    log(`user: ${DEMO_PROMPT}`);

    let shown = 2; // system and user prompt
    let seq = 0;
    const rl = interactive ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
    for (;;) {
      const state = await run.state();
      const messages = await run.transcript({ from: shown, length: state.transcriptLength });
      // Each decision goes right after the messages it reacted to, so the story reads in order.
      const upTo = (end: number) => {
        for (const m of messages.splice(0, Math.max(0, end - shown))) for (const line of formatMessage(m)) log(line);
        shown = Math.max(shown, end);
      };
      for (const step of state.steps.filter((s) => s.seq > seq)) {
        upTo(step.at);
        if (DECISIONS[step.action]) log(`    ⇒ ${DECISIONS[step.action]}: ${step.detail}`);
      }
      upTo(state.transcriptLength);
      seq = state.steps.at(-1)?.seq ?? seq;

      if (state.phase === 'done') break;
      if (state.phase === 'awaiting_clarification' && state.clarification) {
        const { id, question } = state.clarification;
        const answer = rl ? (await rl.question(`\n? ${question}\n> `)).trim() || 'morning' : 'morning';
        if (!rl) log(`  ${auto} answering: ${answer}`);
        await run.answer(answer, id);
      } else if (state.phase === 'awaiting_review') {
        for (const review of state.reviews) {
          const ok = rl
            ? /^y/i.test(
                (await rl.question(`\n? Approve ${review.name} ${JSON.stringify(review.args)}? [y/n] `)).trim(),
              )
            : true;
          if (!rl) log(`  ${auto} approving ${review.name}`);
          const decision = ok
            ? { type: 'accept' as const }
            : { type: 'reject' as const, reason: 'declined by the operator' };
          await run.review(review, decision);
        }
      } else {
        await new Promise((r) => setTimeout(r, 150));
      }
    }
    rl?.close();
    const result = await run.result();
    // Every call the model made, those refused before running (at validation) included.
    const made = callsMade(await run.transcript({ length: (await run.state()).transcriptLength }));
    const calls =
      made > result.toolCalls
        ? `${made} tool calls, ${made - result.toolCalls} refused before running`
        : `${result.toolCalls} tool calls`;
    log(
      `\nFinal answer (${result.turns} model turns, ${calls}${result.reason ? `, ended early: ${result.reason}` : ''}):\n  ${result.answer}`,
    );
    const link = runUrl(target, workflowId) ?? workflowId;
    if (values.keep) {
      log(`\nSee the whole run in the Temporal UI: ${link}`);
      log(`The ${external ? 'worker stays' : 'dev server, its UI and the worker stay'} up (--keep). Ctrl-C to stop.`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    } else if (external) {
      log(`\nSee the whole run in the Temporal UI: ${link}`);
    } else {
      log(`\nThe run, in the Temporal UI while a server serves it: ${link}`);
      log(closingLine(target));
    }
    return 0;
  } finally {
    // Ctrl-C (with --keep) reaches the Temporal runtime too, which may have stopped the worker first.
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
    await target.close();
  }
}

/** What the demo says as its own dev server stops: how to see the run again, as a command that works where it runs. */
export function closingLine(target: Pick<DemoTarget, 'persistent' | 'port' | 'uiPort'>, cairn = CAIRN_HERE): string {
  return target.persistent
    ? `The demo's dev server stops now; its runs stay in ${target.persistent}. To see this run again, serve them: ${cairn} dev --port ${target.port} --ui-port ${target.uiPort} --db-filename ${resolvePath(target.persistent)}, then open the link.`
    : `The demo's dev server stops now, and this run with it (it ran in memory). \`${cairn} demo --keep\` runs the demo and keeps the server and its UI up after the run.`;
}

/** Where the demo ran: for its own dev server, the ports and the database its runs stay in (none: memory). */
type DemoTarget = Connected & { readonly persistent?: string; readonly port?: number; readonly uiPort?: number };

/** The embedded server on the usual ports (UI on 8233); free ports if those are taken. */
async function startDevServer(log: (line: string) => void): Promise<DemoTarget> {
  log('Starting the Temporal dev server…');
  try {
    const server = await startEmbeddedServer({ persistent: true, port: 7233, uiPort: 8233, log });
    return Object.assign(server, { persistent: '.temporal/cairn.db', port: 7233, uiPort: 8233 });
  } catch (error) {
    const reason =
      error instanceof PortInUseError
        ? `port ${error.port} is in use`
        : error instanceof DatabaseInUseError
          ? `.temporal/cairn.db is used by the dev server of pid ${error.holder.pid}`
          : (error as Error).message.split('\n')[0];
    log(`The usual dev server cannot start here (${reason}); using free ports, runs in memory.`);
    const port = 20_000 + (process.pid % 20_000);
    return Object.assign(await startEmbeddedServer({ persistent: false, port, uiPort: port + 1, log }), {
      port,
      uiPort: port + 1,
    });
  }
}

/** The planner's decisions get a line; plain model turns and tool runs show in the transcript. */
const DECISIONS: Partial<Record<StepAction, string>> = {
  repair: 'repair',
  back_off: 'back off',
  clarify: 'clarify',
  review: 'review',
  final: 'finalize',
  finish: 'finish',
};

// `npm run demo` runs this file directly.
if (import.meta.url === `file://${process.argv[1]}`) {
  runDemo(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
