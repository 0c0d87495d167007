/**
 * One file, a real model: an agent with one tool, its worker and a run, on any OpenAI-compatible
 * endpoint (docs/models.md, "Choosing a model"). With a local Ollama and a Temporal dev server
 * (`npx cairn dev`, or `temporal server start-dev`):
 *
 *   npm install cairn-agents @ai-sdk/openai-compatible zod @temporalio/client @temporalio/worker …
 *   ollama pull llama3.1
 *   CAIRN_MODEL=ollama:llama3.1 node real-provider.ts "Where is my order A-1001?"
 *
 * Another server: CAIRN_MODEL=openai-compatible:<model> with CAIRN_MODEL_BASE_URL (and
 * CAIRN_MODEL_API_KEY); OpenAI itself: CAIRN_MODEL=openai:gpt-4.1-mini with OPENAI_API_KEY.
 *
 * The worker bundles this file as the run's workflow code, so its top level holds contracts only;
 * the worker and the run load in the `main` block, which the bundle leaves out (webpackIgnore).
 */
import { z } from 'zod';
import { defineAgent, defineTool } from 'cairn-agents';
import { defineAgentRun } from 'cairn-agents/workflow';

const findOrder = defineTool({
  name: 'find_order',
  description: 'Look up an order by its id, e.g. A-1001.',
  input: z.object({ orderId: z.string().describe('The order id, like A-1001') }),
  // Your database here: a tool's execute runs on the worker.
  execute: async ({ orderId }) => ({ id: orderId, status: 'shipped', arrives: 'Thursday' }),
});

const support = defineAgent({
  name: 'support',
  instructions: 'You help customers with their orders. Look the order up before you answer.',
  tools: [findOrder],
  policy: { missingFieldsFrom: 'user' },
});

/** The workflow the worker runs. */
export const agentRun = defineAgentRun([support]);

/** The worker and one run, until its answer. */
async function main(prompt: string): Promise<void> {
  const { connectFromEnvironment, createCairnWorker } = await import(/* webpackIgnore: true */ 'cairn-agents/worker');
  const { CairnClient } = await import(/* webpackIgnore: true */ 'cairn-agents/client');
  const model = process.env.CAIRN_MODEL ?? 'ollama:llama3.1';
  const connected = await connectFromEnvironment(); // TEMPORAL_ADDRESS, default localhost:7233
  const taskQueue = 'real-provider';
  const worker = await createCairnWorker({
    connection: connected.workerConnection,
    client: connected.client,
    namespace: connected.namespace,
    taskQueue,
    agents: [support],
    workflowsPath: new URL(import.meta.url).pathname,
  });
  const runs = new CairnClient({ client: connected.client, taskQueue });
  try {
    // The worker runs until the run is done; a question the agent asks is answered on the terminal.
    await worker.runUntil(async () => {
      let { run, state } = await runs.startUntilIdle({
        agent: 'support',
        prompt,
        model,
      });
      while (state.phase !== 'done') {
        if (!state.clarification) throw new Error(`Run ${run.workflowId} waits (${state.phase}): see npx cairn show.`);
        process.stdout.write(`${state.clarification.question}\n> `);
        const line = await new Promise<string>((resolve) => process.stdin.once('data', (d) => resolve(String(d))));
        process.stdin.pause();
        await run.answer(line.trim());
        state = await run.untilIdle();
      }
      console.log(state.answer);
    });
  } finally {
    await connected.close();
  }
}

// Run as a script (not when the worker bundles this file: the sandbox has no `process`).
const script = globalThis.process?.argv[1];
if (script && import.meta.url === `file://${script}`)
  main(process.argv[2] ?? 'Where is my order A-1001?').catch((error: unknown) => {
    console.error(`real-provider: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
