/**
 * Your backend's side: start a support run and see it through. The run asks the customer when it
 * needs to, and an operator approves large refunds. `node src/client.ts "<message>"` runs it on
 * the terminal against a running worker (`npm start`).
 */
import { createInterface } from 'node:readline/promises';
import { fileURLToPath } from 'node:url';
import { connectCairnClient, type CairnClient } from 'cairn-agents/client';

/** The people a run may need: the customer answers questions, an operator decides refunds. */
export interface People {
  ask(question: string): Promise<string>;
  approve(tool: string, args: unknown): Promise<boolean>;
}

/** Runs the support agent on `message` until it answers; returns the answer. */
export async function helpCustomer(
  runs: CairnClient,
  message: string,
  people: People,
  options: { model?: string } = {},
): Promise<string> {
  let { run, state } = await runs.startUntilIdle({ agent: 'support', prompt: message, ...options });
  while (state.phase !== 'done') {
    if (state.paused) throw new Error(`Run ${run.workflowId} was paused (cairn-agents/client: run.resume() goes on).`);
    if (state.clarification) await run.answer(await people.ask(state.clarification.question));
    for (const review of state.reviews)
      await run.review(
        review,
        (await people.approve(review.name, review.args))
          ? { type: 'accept' }
          : { type: 'reject', reason: 'The operator said no.' },
      );
    state = await run.untilIdle();
  }
  return state.answer ?? '';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const runs = await connectCairnClient();
    try {
      const answer = await helpCustomer(
        runs,
        process.argv[2] ?? 'My order arrived very late. Can I get my money back?',
        {
          ask: (question) => terminal.question(`${question}\n> `),
          approve: async (tool, args) =>
            /^y/i.test(await terminal.question(`Approve ${tool} ${JSON.stringify(args)}? [y/n] `)),
        },
      );
      console.log(answer);
    } finally {
      await runs.close();
    }
  } catch (error) {
    // One line for a person (no server at the address, a run that failed), not a trace.
    console.error(`client: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  } finally {
    terminal.close();
  }
}
