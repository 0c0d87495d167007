/**
 * Seeded fuzzing through a real worker and dev server: over 2,000 model turns answered by a model
 * client that returns malformed and shape-breaking outcomes among well-formed ones
 * (test/support/model-outcomes.ts). Every run ends (completed, or failed model_unavailable on a
 * model client's own error), no workflow task fails, and every
 * outcome reaches the planner structured: each shape-breaker as `malformed_model_output`.
 * A longer run is a bench script: `npx tsx bench/fuzz.ts [turns]`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import { events } from './support/runs.js';
import { fuzzModel } from './support/model-outcomes.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

const SEED = 20261122;
const TURNS = 2_000;
/** Turns a run gets before a plain answer may end it: long runs, so the turns are spent on outcomes, not on starting runs. */
const TURNS_PER_RUN = 30;

const fuzz = fuzzModel(SEED, {
  toolNames: ['lookup_order', 'search_orders', 'no_such_tool'],
  turnsPerRun: TURNS_PER_RUN,
});

let w: TestWorker;
beforeAll(async () => void (w = await startTestWorker({ models: { fuzz: fuzz.client } })));
afterAll(() => w?.stop());

describe(`${TURNS} fuzzed model turns`, () => {
  it('every run ends honestly, no workflow task fails, every outcome arrives structured', {
    timeout: 600_000,
  }, async () => {
    const policy = {
      maxTurns: 60,
      maxToolCalls: 1_000,
      maxModelRetries: 60,
      maxNudges: 60,
      maxConsecutiveFailedBatches: 60,
      onLoop: 'finalize' as const,
      maxRepairsPerTool: 60,
    };
    const handles: AgentRunHandle[] = [];
    let failed = 0;
    while (fuzz.generated.length < TURNS) {
      const wave = await Promise.all(
        Array.from({ length: 16 }, () =>
          w
            .start({ agent: 'test', prompt: 'Look things up.', model: 'scripted:fuzz', policy })
            .then((h) => new AgentRunHandle(w.client, h.workflowId)),
        ),
      );
      handles.push(...wave);
      // A model client's own error (not a refusal to wait out) fails the run honestly, as model_unavailable.
      await Promise.all(
        wave.map((run) =>
          run.result().catch((error: unknown) => {
            expect((error as { cause?: { type?: string } }).cause?.type).toBe('model_unavailable');
            failed++;
          }),
        ),
      );
    }
    let turns = 0;
    let malformed = 0;
    const closed: (string | undefined)[] = [];
    for (const run of handles) {
      const history = await events(run.workflow);
      expect(history.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
      // A failed run's event stream ends by throwing its failure, after every event it had.
      const ended = (async () => {
        for await (const event of run.events()) {
          if (event.type !== 'model_turn') continue;
          turns++;
          if (event.error?.code === 'malformed_model_output') malformed++;
        }
      })().then(
        () => 'completed',
        (error: unknown) => (error as { cause?: { type?: string } }).cause?.type,
      );
      closed.push(await ended);
    }
    expect(closed.filter((how) => how === 'model_unavailable').length).toBe(failed);
    expect(closed.filter((how) => how !== 'completed' && how !== 'model_unavailable')).toEqual([]);
    expect(turns).toBe(fuzz.generated.length);
    expect(malformed).toBe(fuzz.generated.filter((g) => g.expect === 'malformed').length);
    expect(malformed).toBeGreaterThan(TURNS / 10);
    console.log(
      `${turns} model turns in ${handles.length} runs; ${malformed} malformed outcomes refused at the boundary, all structured; ${failed} runs failed model_unavailable on a model error`,
    );
  });
});
