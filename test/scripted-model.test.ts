/**
 * The scripted model: script semantics, the hint-following repairs, recording, and the loud
 * failure when a script runs out.
 */
import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../shared/tools/define-tool.js';
import type { JsonObject, JsonValue } from '../shared/json/json.js';
import type { ModelOutcome, ModelResponse, ToolChoice } from '../shared/model/model-response.js';
import type { TranscriptMessage } from '../shared/model/transcript.js';
import { closestValue, editDistance } from '../testing/closest-value.js';
import { getAtPath, setAtPath } from '../testing/json-path.js';
import { ModelConfigError, ModelNetworkError, ModelServerError } from '../activities/model/model-errors.js';
import { ScriptExhaustedError } from '../testing/script-exhausted-error.js';
import { PerRunScriptedModel } from '../testing/per-run-scripted-model.js';
import {
  fillMissingFields,
  fixEnumValues,
  followNextInput,
  lastFailedCalls,
  repairLastCalls,
} from '../testing/script-repairs.js';
import { scriptStep } from '../testing/script-steps.js';
import { ScriptedModel } from '../testing/scripted-model.js';

const searchOrders: ToolSpec = {
  name: 'search_orders',
  description: 'Search orders.',
  args_schema: { type: 'object' },
};
const user: TranscriptMessage = { role: 'user', content: 'Which orders shipped?' };

function ask(model: ScriptedModel, messages: readonly TranscriptMessage[] = [user], toolChoice: ToolChoice = 'auto') {
  return model.generate({ messages, tools: [searchOrders], toolChoice });
}

function responseOf(outcome: ModelOutcome): ModelResponse | null {
  if (outcome.status !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(outcome)}`);
  return outcome.response;
}

/** The transcript after the model called `search_orders` with `args` and the call failed with `content`. */
function afterFailure(args: JsonValue, content: JsonObject): TranscriptMessage[] {
  return [
    user,
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ toolCallId: '1.0', providerCallId: 'call_0_0', name: 'search_orders', args }],
    },
    { role: 'tool', toolCallId: '1.0', providerCallId: 'call_0_0', name: 'search_orders', content },
  ];
}

/** A failure as Cairn shows it to the model (the model view). */
function failure(code: string, hint: JsonObject, partial?: JsonValue): JsonObject {
  return {
    error: { kind: 'invalid_input', code, message: `${code} happened`, causes: [] },
    hint: { reason: code, tool: 'search_orders', ...hint },
    ...(partial !== undefined && { partial }),
  };
}

describe('script steps', () => {
  it('answers step N on call N, with deterministic call ids and verbatim raw arguments', async () => {
    const model = new ScriptedModel('orders', [
      scriptStep.call('search_orders', { status: 'shipped' }),
      scriptStep.calls([
        { name: 'search_orders', arguments: '{"status": "shipped", "page": ' },
        { name: 'search_orders', arguments: { status: 'placed' } },
      ]),
      scriptStep.text('Two orders shipped.'),
    ]);
    expect(responseOf(await ask(model))).toEqual({
      text: '',
      toolCalls: [{ id: 'call_0_0', name: 'search_orders', arguments: '{"status":"shipped"}' }],
      finishReason: 'tool_calls',
    });
    expect(responseOf(await ask(model))?.toolCalls).toEqual([
      { id: 'call_1_0', name: 'search_orders', arguments: '{"status": "shipped", "page": ' },
      { id: 'call_1_1', name: 'search_orders', arguments: '{"status":"placed"}' },
    ]);
    expect(responseOf(await ask(model))).toEqual({ text: 'Two orders shipped.', toolCalls: [], finishReason: 'stop' });
    expect(model.remaining).toBe(0);
  });

  it('answers provider failures as error outcomes', async () => {
    const model = new ScriptedModel('failures', [scriptStep.rateLimited(1500), scriptStep.unavailable()]);
    expect(await ask(model)).toMatchObject({
      status: 'error',
      retryAfterMs: 1500,
      error: { code: 'rate_limited', kind: 'transient' },
    });
    expect(await ask(model)).toMatchObject({
      status: 'error',
      error: { code: 'tool_unavailable', kind: 'unavailable' },
    });
  });

  it('produces each invalid response shape of seed 004', async () => {
    const model = new ScriptedModel('invalid', [
      scriptStep.nullResponse(),
      scriptStep.interrupted('The orders that shi'),
      scriptStep.empty(),
      scriptStep.thinkOnly('Hmm.'),
    ]);
    expect(await ask(model)).toEqual({ status: 'ok', response: null });
    expect(responseOf(await ask(model))).toEqual({
      text: 'The orders that shi',
      toolCalls: [],
      finishReason: 'other',
      interrupted: true,
    });
    expect(responseOf(await ask(model))).toEqual({ text: '', toolCalls: [], finishReason: 'stop' });
    expect(responseOf(await ask(model))).toEqual({ text: '<think>Hmm.</think>', toolCalls: [], finishReason: 'stop' });
  });

  it('throws the retryable infrastructure errors', async () => {
    const model = new ScriptedModel('throws', [scriptStep.serverError(503), scriptStep.networkError()]);
    const server: unknown = await ask(model).catch((e: unknown) => e);
    expect(ModelServerError.isInstance(server) && server.statusCode).toBe(503);
    expect(ModelNetworkError.isInstance(await ask(model).catch((e: unknown) => e))).toBe(true);
  });

  it('runs a reactive step on the request it answers', async () => {
    const model = new ScriptedModel('echo', [
      scriptStep.react(({ messages, toolChoice, step }) =>
        scriptStep.text(`${messages.length} message(s), ${JSON.stringify(toolChoice)}, step ${step}`),
      ),
    ]);
    expect(responseOf(await ask(model, [user, user], 'none'))?.text).toBe('2 message(s), "none", step 0');
  });
});

describe('recording and exhaustion', () => {
  it('records every request as a copy', async () => {
    const model = new ScriptedModel('record', [scriptStep.text('a'), scriptStep.text('b')]);
    const messages: TranscriptMessage[] = [user];
    await ask(model, messages, { tool: 'search_orders' });
    messages.push({ role: 'user', content: 'And placed?' });
    await ask(model, messages);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]).toEqual({
      messages: [user],
      tools: [searchOrders],
      toolChoice: { tool: 'search_orders' },
    });
    expect(model.requests[1]!.messages).toHaveLength(2);
  });

  it('fails loudly, naming the script and step, when the script runs out', async () => {
    const model = new ScriptedModel('orders-demo', [scriptStep.text('done')]);
    await ask(model);
    const error: unknown = await ask(model).catch((e: unknown) => e);
    expect(ScriptExhaustedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ name: 'ScriptExhaustedError', script: 'orders-demo', step: 1 });
    expect((error as Error).message).toMatch(/"orders-demo" has no step 1: its script has 1 step/);
    // The call that ran out is still recorded, for the test's post-mortem.
    expect(model.requests).toHaveLength(2);
  });
});

describe('one script per run', () => {
  const script = [scriptStep.text('first'), scriptStep.text('second')];
  const textOf = async (outcome: Promise<ModelOutcome>) => responseOf(await outcome)?.text;
  const askRun = (
    model: PerRunScriptedModel,
    runKey: string | undefined,
    messages: readonly TranscriptMessage[] = [user],
  ) => model.generate({ messages, tools: [], toolChoice: 'auto', ...(runKey !== undefined && { runKey }) });
  const answered: TranscriptMessage = { role: 'assistant', content: 'first', toolCalls: [] };

  it('gives every run its own position in the script, however the calls interleave', async () => {
    const model = new PerRunScriptedModel('shared', script);
    expect(await textOf(askRun(model, 'run-a'))).toBe('first');
    expect(await textOf(askRun(model, 'run-b'))).toBe('first');
    expect(await textOf(askRun(model, 'run-a', [user, answered]))).toBe('second');
    expect(await textOf(askRun(model, 'run-b', [user, answered]))).toBe('second');
    expect(model.run('run-a')?.remaining).toBe(0);
    expect(model.run('run-a')?.requests).toEqual([]); // a long-lived worker keeps no copies
    expect(model.size).toBe(2);
  });

  it('still fails loudly when a run asks for one step too many', async () => {
    const model = new PerRunScriptedModel('shared', script);
    await askRun(model, 'run-a');
    await askRun(model, 'run-a', [user, answered]);
    await expect(askRun(model, 'run-a', [user, answered, answered, user])).rejects.toSatisfy(
      ScriptExhaustedError.isInstance,
    );
  });

  it('serves a run it has not seen from the step its transcript has reached, as another worker would', async () => {
    const model = new PerRunScriptedModel('shared', () => script);
    // A restarted worker, another worker or a new build: one reply in the transcript, so step 1.
    expect(await textOf(askRun(model, 'restarted-run', [user, answered, user]))).toBe('second');
    expect(await textOf(askRun(model, 'new-run', [user]))).toBe('first');
    await expect(
      askRun(new PerRunScriptedModel('shared', script), 'late-run', [user, answered, answered]),
    ).rejects.toSatisfy(ScriptExhaustedError.isInstance);
  });

  it('goes past steps that leave no reply, and serves a reply again that the run did not record', async () => {
    const steps = [scriptStep.rateLimited(10), scriptStep.text('first'), scriptStep.empty(), scriptStep.text('second')];
    const model = new PerRunScriptedModel('shared', steps);
    expect(await askRun(model, 'run-a')).toMatchObject({ status: 'error', error: { code: 'rate_limited' } });
    expect(await textOf(askRun(model, 'run-a'))).toBe('first');
    // The reply was lost (the activity ran again): the transcript says where the run stands, so
    // the same steps come again, the rate limit first.
    expect(await askRun(model, 'run-a')).toMatchObject({ status: 'error', error: { code: 'rate_limited' } });
    expect(await textOf(askRun(model, 'run-a'))).toBe('first');
    expect(await textOf(askRun(model, 'run-a', [user, answered]))).toBe('');
    expect(await textOf(askRun(model, 'run-a', [user, answered, user]))).toBe('second');
    // A fresh process, one reply in: the step after it (the empty one, served again), then on.
    const fresh = new PerRunScriptedModel('shared', steps);
    expect(await textOf(askRun(fresh, 'run-a', [user, answered]))).toBe('');
    expect(await textOf(askRun(fresh, 'run-a', [user, answered, user]))).toBe('second');
  });

  it('remembers at most maxRuns runs, forgetting the least recently active', async () => {
    const model = new PerRunScriptedModel('shared', script, 2);
    await askRun(model, 'run-a');
    await askRun(model, 'run-b');
    await askRun(model, 'run-a', [user, answered]);
    await askRun(model, 'run-c');
    expect([model.run('run-a'), model.run('run-b'), model.run('run-c')].map((m) => m?.remaining)).toEqual([
      0,
      undefined,
      1,
    ]);
    expect(model.size).toBe(2);
    // Forgotten, run-b is served from its transcript.
    expect(await textOf(askRun(model, 'run-b', [user, answered]))).toBe('second');
  });

  it('refuses a call that names no run', async () => {
    await expect(askRun(new PerRunScriptedModel('shared', script), undefined)).rejects.toSatisfy(
      ModelConfigError.isInstance,
    );
  });
});

describe('repairs', () => {
  it('fills missing fields from hint.exampleInput, keeping what was sent', async () => {
    const model = new ScriptedModel('missing', [repairLastCalls()]);
    const content = failure('missing_fields', {
      missingFields: ['status', 'filter.region'],
      exampleInput: { status: 'placed', page: 1, filter: { region: 'EU' } },
      priorInput: { page: 3 },
    });
    const response = responseOf(await ask(model, afterFailure({ page: 3 }, content)));
    expect(response?.toolCalls).toEqual([
      {
        id: 'call_0_0',
        name: 'search_orders',
        arguments: JSON.stringify({ page: 3, status: 'placed', filter: { region: 'EU' } }),
      },
    ]);
  });

  it('switches an invalid enum value to the closest allowed one: shipping → shipped', async () => {
    const model = new ScriptedModel('enum', [repairLastCalls()]);
    const content = failure('invalid_arguments', {
      issues: [
        {
          path: 'status',
          message: 'Invalid option',
          received: 'shipping',
          allowed: ['placed', 'shipped', 'delivered', 'cancelled'],
        },
      ],
    });
    // No priorInput in the hint: the repair reads the arguments of the failed call from the transcript.
    const response = responseOf(await ask(model, afterFailure({ status: 'shipping', page: 1 }, content)));
    expect(JSON.parse(response!.toolCalls[0]!.arguments)).toEqual({ status: 'shipped', page: 1 });
  });

  it('follows hint.nextInput for partial data, merged into the prior input', async () => {
    const model = new ScriptedModel('paging', [repairLastCalls({ text: 'Fetching the next page.' })]);
    const content = failure(
      'partial_data',
      { priorInput: { status: 'shipped', page: 1 }, nextInput: { page: 2 } },
      { orders: ['A1'] },
    );
    const response = responseOf(await ask(model, afterFailure({ status: 'shipped', page: 1 }, content)));
    expect(response?.text).toBe('Fetching the next page.');
    expect(JSON.parse(response!.toolCalls[0]!.arguments)).toEqual({ status: 'shipped', page: 2 });
  });

  it('repairs every failed call of the latest batch and skips the successful ones', () => {
    const messages: TranscriptMessage[] = [
      ...afterFailure(
        { status: 'shipping' },
        failure('invalid_arguments', { issues: [{ path: 'status', allowed: ['shipped'] }] }),
      ),
      { role: 'tool', toolCallId: '1.1', name: 'search_orders', content: { orders: [] } },
      {
        role: 'tool',
        toolCallId: '1.2',
        name: 'search_orders',
        content: failure('missing_fields', { missingFields: ['status'] }),
      },
    ];
    expect(lastFailedCalls(messages).map((call) => call.message.toolCallId)).toEqual(['1.0', '1.2']);
  });

  it('fails loudly when there is nothing to repair, unless told otherwise', async () => {
    const strict = new ScriptedModel('strict', [repairLastCalls()]);
    await expect(ask(strict)).rejects.toThrow(/"strict" step 0: expected a failed tool result/);
    const lenient = new ScriptedModel('lenient', [repairLastCalls({ otherwise: scriptStep.text('All good.') })]);
    expect(responseOf(await ask(lenient))?.text).toBe('All good.');
  });

  it('drives a whole repair loop: bad call, repair, final answer', async () => {
    const model = new ScriptedModel('loop', [
      scriptStep.call('search_orders', { status: 'shipping' }),
      repairLastCalls(),
      scriptStep.text('Order A1 shipped.'),
    ]);
    const first = responseOf(await ask(model))!.toolCalls[0]!;
    const transcript = afterFailure(
      JSON.parse(first.arguments) as JsonValue,
      failure('invalid_arguments', {
        issues: [{ path: 'status', received: '"shipping"', allowed: ['placed', 'shipped', 'delivered', 'cancelled'] }],
        priorInput: { status: 'shipping' },
      }),
    );
    const second = responseOf(await ask(model, transcript))!.toolCalls[0]!;
    expect(second).toEqual({ id: 'call_1_0', name: 'search_orders', arguments: '{"status":"shipped"}' });
    expect(responseOf(await ask(model, transcript))?.text).toBe('Order A1 shipped.');
    expect(model.requests.map((request) => request.messages.length)).toEqual([1, 3, 3]);
  });
});

describe('repair helpers', () => {
  it('measures edit distance and picks the closest allowed value', () => {
    expect(editDistance('shipping', 'shipped')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(closestValue('shipping', ['placed', 'shipped', 'delivered', 'cancelled'])).toBe('shipped');
    expect(closestValue('CANCELED', ['placed', 'cancelled'])).toBe('cancelled');
    expect(closestValue('x', [1, 2])).toBe(1);
  });

  it('reads and writes dotted paths without mutating the input', () => {
    const input: JsonObject = { items: [{ sku: 'A' }], page: 1 };
    const written = setAtPath(input, 'items.0.sku', 'B');
    expect(written).toEqual({ items: [{ sku: 'B' }], page: 1 });
    expect(input).toEqual({ items: [{ sku: 'A' }], page: 1 });
    expect(setAtPath({}, 'filter.tags.0', 'x')).toEqual({ filter: { tags: ['x'] } });
    expect(getAtPath(written, 'items.0.sku')).toBe('B');
    expect(getAtPath(written, 'items.3.sku')).toBeUndefined();
  });

  it('applies each repair only where the hint asks', () => {
    const hint = { missingFields: ['status'], issues: [], exampleInput: { status: 'placed', page: 1 } };
    expect(fillMissingFields({ status: 'shipped' }, hint)).toEqual({ status: 'shipped' });
    expect(fixEnumValues({ status: 'shipped' }, { missingFields: [], issues: [{ path: 'status' }] })).toEqual({
      status: 'shipped',
    });
    expect(
      followNextInput({ page: 1, status: 'shipped' }, { missingFields: [], issues: [], nextInput: { page: 2 } }),
    ).toEqual({
      page: 2,
      status: 'shipped',
    });
  });
});
