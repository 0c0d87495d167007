/**
 * Seeded fuzzing through a real worker and dev server: over 2,000 model turns answered by a model
 * client that returns malformed and shape-breaking outcomes among well-formed ones
 * (test/support/model-outcomes.ts). Every run completes, no workflow task fails, and every
 * outcome reaches the planner structured: each shape-breaker as `malformed_model_output`.
 * `npm run bench` has a longer run (bench/fuzz.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRunHandle } from '../client/agent-run-handle.js';
import type { ModelClient } from '../activities/model/model-client.js';
import { events } from './support/runs.js';
import { generateOutcome, type GeneratedOutcome } from './support/model-outcomes.js';
import { seededRandom } from './support/seeded-random.js';
import { startTestWorker, type TestWorker } from './support/temporal.js';

const SEED = 20261122;
const TURNS = 2_000;
/** Turns a run gets before a plain answer may end it: long runs, so the turns are spent on outcomes, not on starting runs. */
const TURNS_PER_RUN = 30;

/** The generator as a model client, answering runs in whatever order they ask; `generated` is what it returned. */
function fuzzModel(seed: number): { client: ModelClient; generated: GeneratedOutcome[] } {
  const next = seededRandom(seed);
  const generated: GeneratedOutcome[] = [];
  const turns = new Map<string, number>();
  const ends = (o: GeneratedOutcome) => {
    const v = o.value as { status?: unknown; response?: { toolCalls?: unknown; text?: unknown } } | null;
    return o.expect === 'ok' && v?.status === 'ok' && Array.isArray(v.response?.toolCalls) && v.response.toolCalls.length === 0 && v.response.text !== '';
  };
  const client: ModelClient = {
    async generate({ runKey = '' }) {
      const turn = (turns.get(runKey) ?? 0) + 1;
      turns.set(runKey, turn);
      let outcome = generateOutcome(next, { toolNames: ['lookup_order', 'search_orders', 'no_such_tool'] });
      // A thenable is awaited and a revoked proxy rejects: neither reaches the boundary as a value.
      while (outcome.kind === 'promise_outcome' || outcome.kind === 'revoked_outcome' || (turn < TURNS_PER_RUN && ends(outcome)))
        outcome = generateOutcome(next, { toolNames: ['lookup_order', 'search_orders', 'no_such_tool'] });
      generated.push(outcome);
      return outcome.value as never;
    },
  };
  return { client, generated };
}

const fuzz = fuzzModel(SEED);

let w: TestWorker;
beforeAll(async () => void (w = await startTestWorker({ models: { fuzz: fuzz.client } })));
afterAll(() => w?.stop());

describe(`${TURNS} fuzzed model turns`, () => {
  it('every run completes, no workflow task fails, every outcome arrives structured', { timeout: 600_000 }, async () => {
    const policy = { maxTurns: 60, maxToolCalls: 1_000, maxModelRetries: 60, maxNudges: 60, maxConsecutiveFailedBatches: 60, onLoop: 'finalize' as const, maxRepairsPerTool: 60 };
    const handles: AgentRunHandle[] = [];
    while (fuzz.generated.length < TURNS) {
      const wave = await Promise.all(
        Array.from({ length: 16 }, () => w.start({ agent: 'test', prompt: 'Look things up.', model: 'scripted:fuzz', policy }).then((h) => new AgentRunHandle(w.client, h.workflowId))),
      );
      handles.push(...wave);
      await Promise.all(wave.map((run) => run.result()));
    }
    let turns = 0;
    let malformed = 0;
    for (const run of handles) {
      const history = await events(run.workflow);
      expect(history.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
      for await (const event of run.events()) {
        if (event.type !== 'model_turn') continue;
        turns++;
        if (event.error?.code === 'malformed_model_output') malformed++;
      }
    }
    expect(turns).toBe(fuzz.generated.length);
    expect(malformed).toBe(fuzz.generated.filter((g) => g.expect === 'malformed').length);
    expect(malformed).toBeGreaterThan(TURNS / 10);
    console.log(`${turns} model turns in ${handles.length} runs; ${malformed} malformed outcomes refused at the boundary, all structured`);
  });
});
