import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonSchema, tool } from 'ai';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createToolActivities } from '../../activities/tool-activity.js';
import { needsApproval } from './define-tool.js';
import { DefinitionError } from '../failures/definition-error.js';
import { fromAiSdkTool } from './from-ai-sdk-tool.js';

interface Weather {
  readonly forecast: (city: string) => string;
}

const seen: unknown[] = [];
const weather = tool({
  description: 'The weather in a city.',
  inputSchema: z.object({ city: z.string().describe('City name') }),
  outputSchema: z.object({ city: z.string(), sky: z.string() }),
  needsApproval: ({ city }) => city === 'Atlantis',
  execute: async ({ city }, options) => {
    seen.push(options);
    return { city, sky: (options.context as unknown as Weather).forecast(city) };
  },
});

const env = new MockActivityEnvironment(
  { workflowExecution: { workflowId: 'wf-7', runId: 'run-1' } },
  { logger: new DefaultLogger('ERROR') },
);

describe('fromAiSdkTool', () => {
  // Converted inside each test, not when the file loads: Stryker turns a mutant on only once tests start.
  const getWeather = () => fromAiSdkTool('get_weather', weather);

  it('keeps the AI SDK tool’s description and schema, as the model sees them', () => {
    expect(getWeather().spec).toEqual({
      name: 'get_weather',
      description: 'The weather in a city.',
      args_schema: {
        type: 'object',
        properties: { city: { type: 'string', description: 'City name' } },
        required: ['city'],
      },
    });
    expect(getWeather().sideEffects).toBe('none');
  });

  it('turns needsApproval into the approval rule: a function is asked, true always asks', () => {
    expect(needsApproval(getWeather(), { city: 'Atlantis' })).toBe(true);
    expect(needsApproval(getWeather(), { city: 'Lyon' })).toBe(false);
    const always = fromAiSdkTool(
      'delete_city',
      tool({
        description: 'Delete a city.',
        inputSchema: z.object({ city: z.string() }),
        needsApproval: true,
        execute: async () => 'gone',
      }),
    );
    expect(always.approval).toBe('always');
    // A promise cannot be awaited in the workflow: when in doubt, ask.
    const asynchronous = fromAiSdkTool(
      'maybe',
      tool({
        description: 'Maybe.',
        inputSchema: z.object({}),
        needsApproval: async () => false,
        execute: async () => 'ok',
      }),
    );
    expect(needsApproval(asynchronous, {})).toBe(true);
  });

  it('runs in the tool activity: deps become the AI SDK’s context, and the output is guarded', async () => {
    const { runTool } = createToolActivities([getWeather()], {
      forecast: (city: string) => `sunny in ${city}`,
    } satisfies Weather);
    const result = await env.run(runTool, { name: 'get_weather', toolCallId: '1.1', args: { city: 'Lyon' } });
    expect(result).toMatchObject({ status: 'ok', result: { city: 'Lyon', sky: 'sunny in Lyon' } });
    expect(seen.at(-1)).toMatchObject({ toolCallId: '1.1', messages: [], context: { forecast: expect.any(Function) } });
    expect((seen.at(-1) as { abortSignal: unknown }).abortSignal).toBeInstanceOf(AbortSignal);
    // The AI SDK tool's outputSchema guards what it returns.
    const cloudy = createToolActivities([getWeather()], { forecast: () => 42 as unknown as string } satisfies Weather);
    expect(
      await env.run(cloudy.runTool, { name: 'get_weather', toolCallId: '1.2', args: { city: 'Lyon' } }),
    ).toMatchObject({ status: 'error', error: { code: 'output_schema_violation' } });
  });

  it('takes what the AI SDK cannot say (side effects, examples) as extras, and the last value of a streaming execute', async () => {
    const streaming = fromAiSdkTool(
      'count_down',
      tool({
        description: 'Counts down.',
        inputSchema: z.object({ from: z.number().int() }),
        async *execute({ from }) {
          for (let n = from; n >= 0; n--) yield { left: n };
        },
      }),
      { sideEffects: 'once', examples: [{ from: 3 }] },
    );
    expect(streaming.sideEffects).toBe('once');
    const { runTool } = createToolActivities([streaming]);
    expect(await env.run(runTool, { name: 'count_down', toolCallId: '2.1', args: { from: 2 } })).toMatchObject({
      status: 'ok',
      result: { left: 0 },
    });
  });

  it('refuses what Cairn cannot run: no execute, a schema that is not zod, no description', () => {
    const fail = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        expect(DefinitionError.isInstance(error)).toBe(true);
        return (error as Error).message;
      }
      throw new Error('expected a DefinitionError');
    };
    expect(() =>
      fromAiSdkTool('client_side', tool({ description: 'Ask the browser.', inputSchema: z.object({}) })),
    ).toThrow(expect.objectContaining({ code: 'invalid_input_schema' }));
    expect(
      fail(() =>
        fromAiSdkTool(
          'client_side',
          tool({ description: 'Ask the browser.', inputSchema: z.object({}), outputSchema: z.string() }),
        ),
      ),
    ).toMatch(/no execute function/);
    expect(
      fail(() =>
        fromAiSdkTool(
          'json',
          tool({
            description: 'JSON Schema input.',
            inputSchema: jsonSchema<{ a: string }>({ type: 'object', properties: { a: { type: 'string' } } }),
            execute: async () => 'x',
          }),
        ),
      ),
    ).toMatch(/inputSchema must be a zod 4 schema/);
    expect(fail(() => fromAiSdkTool('bare', tool({ inputSchema: z.object({}), execute: async () => 'x' })))).toMatch(
      /needs a description/,
    );
  });
});

describe('fromAiSdkTool: the fields it reads', () => {
  const input = z.object({ n: z.number() });
  const context = (deps: unknown) => ({ toolCallId: '4.2', deps, signal: new AbortController().signal }) as never;

  it('a description given as extras wins; one given as a function is refused with how to give the text', () => {
    const described = fromAiSdkTool(
      't',
      { description: 'Old.', inputSchema: input, execute: () => 1 },
      { description: 'New.' },
    );
    expect(described.description).toBe('New.');
    expect(
      fromAiSdkTool(
        't',
        { description: () => 'dynamic', inputSchema: input, execute: () => 1 },
        { description: 'Given.' },
      ).description,
    ).toBe('Given.');
    expect(() => fromAiSdkTool('t', { description: () => 'dynamic', inputSchema: input, execute: () => 1 })).toThrow(
      expect.objectContaining({
        code: 'invalid_tool_description',
        message:
          'AI SDK tool t describes itself with a function; give Cairn the text: fromAiSdkTool(name, tool, { description }).',
      }),
    );
  });

  it('an output schema that is not zod is refused, naming the field; a schema-less output is not guarded', () => {
    expect(() =>
      fromAiSdkTool('t', { description: 'd', inputSchema: input, outputSchema: { type: 'object' }, execute: () => 1 }),
    ).toThrow(/^AI SDK tool t: outputSchema must be a zod 4 schema/);
    for (const inputSchema of [null, 'z.object()', { _zod: {} }]) {
      expect(() => fromAiSdkTool('t', { description: 'd', inputSchema, execute: () => 1 })).toThrow(
        expect.objectContaining({ code: 'invalid_input_schema' }),
      );
    }
    const schemaless = fromAiSdkTool('t', { description: 'd', inputSchema: input, execute: () => 1 });
    expect(schemaless.output).toBeUndefined();
    expect(Object.keys(schemaless)).not.toContain('output');
  });

  it('an approval function is asked with the arguments; its answer counts by truth, a promise-like one always asks', () => {
    const asked: unknown[] = [];
    const rule = (answer: unknown) =>
      fromAiSdkTool('t', {
        description: 'd',
        inputSchema: input,
        needsApproval: (args: unknown, options: unknown) => {
          asked.push(args, options);
          return answer;
        },
        execute: () => 1,
      });
    expect(needsApproval(rule(0), { n: 1 })).toBe(false);
    expect(asked).toEqual([{ n: 1 }, { toolCallId: '', messages: [], context: undefined }]);
    expect(needsApproval(rule('yes'), { n: 1 })).toBe(true);
    // biome-ignore lint/suspicious/noThenProperty: a needsApproval answer that only looks like a promise
    expect(needsApproval(rule({ then: 'not a function' }), { n: 1 })).toBe(true);
    expect(needsApproval(rule(null), { n: 1 })).toBe(false);
    // biome-ignore lint/suspicious/noThenProperty: a thenable answer, not a real promise
    expect(needsApproval(rule({ then: () => undefined }), { n: 1 })).toBe(true);
    // needsApproval false or absent: the extras may still set approval; the default never asks.
    expect(
      fromAiSdkTool('t', { description: 'd', inputSchema: input, needsApproval: false, execute: () => 1 }).approval,
    ).toBe('never');
    expect(
      fromAiSdkTool('t', { description: 'd', inputSchema: input, execute: () => 1 }, { approval: 'always' }).approval,
    ).toBe('always');
  });

  it("execute gets the call id, no messages, the abort signal and the worker's deps; plain and null results pass through", async () => {
    const calls: unknown[] = [];
    const plain = fromAiSdkTool('t', {
      description: 'd',
      inputSchema: input,
      execute(args: { n: number }, options: unknown) {
        calls.push(this, args, options);
        return args.n === 0 ? null : { doubled: args.n * 2 };
      },
    });
    const ctx = context({ db: 1 });
    expect(await plain.execute({ n: 2 }, ctx)).toEqual({ doubled: 4 });
    expect(calls[1]).toEqual({ n: 2 });
    expect(calls[2]).toEqual({
      toolCallId: '4.2',
      messages: [],
      abortSignal: (ctx as { signal: AbortSignal }).signal,
      context: { db: 1 },
    });
    expect(await plain.execute({ n: 0 }, ctx)).toBeNull();
  });

  it('execute runs bound to its tool object, and an empty stream gives no value', async () => {
    const aiTool = {
      description: 'd',
      inputSchema: input,
      factor: 3,
      execute(this: { factor: number }, args: { n: number }) {
        return args.n * this.factor;
      },
    };
    expect(await fromAiSdkTool('t', aiTool).execute({ n: 2 }, context(undefined))).toBe(6);
    const empty = fromAiSdkTool('t', { description: 'd', inputSchema: input, async *execute() {} });
    expect(await empty.execute({ n: 1 }, context(undefined))).toBeUndefined();
  });
});
