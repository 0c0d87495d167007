import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonSchema, tool } from 'ai';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createToolActivities } from '../activities/tool-activity.js';
import { needsApproval } from './define-tool.js';
import { DefinitionError } from './definition-error.js';
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

const env = new MockActivityEnvironment({ workflowExecution: { workflowId: 'wf-7', runId: 'run-1' } }, { logger: new DefaultLogger('ERROR') });

describe('fromAiSdkTool', () => {
  const getWeather = fromAiSdkTool('get_weather', weather);

  it('keeps the AI SDK tool’s description and schema, as the model sees them', () => {
    expect(getWeather.spec).toEqual({
      name: 'get_weather',
      description: 'The weather in a city.',
      args_schema: {
        type: 'object',
        properties: { city: { type: 'string', description: 'City name' } },
        required: ['city'],
      },
    });
    expect(getWeather.sideEffects).toBe('none');
  });

  it('turns needsApproval into the approval rule: a function is asked, true always asks', () => {
    expect(needsApproval(getWeather, { city: 'Atlantis' })).toBe(true);
    expect(needsApproval(getWeather, { city: 'Lyon' })).toBe(false);
    const always = fromAiSdkTool('delete_city', tool({ description: 'Delete a city.', inputSchema: z.object({ city: z.string() }), needsApproval: true, execute: async () => 'gone' }));
    expect(always.approval).toBe('always');
    // A promise cannot be awaited in the workflow: when in doubt, ask.
    const asynchronous = fromAiSdkTool('maybe', tool({ description: 'Maybe.', inputSchema: z.object({}), needsApproval: async () => false, execute: async () => 'ok' }));
    expect(needsApproval(asynchronous, {})).toBe(true);
  });

  it('runs in the tool activity: deps become the AI SDK’s context, and the output is guarded', async () => {
    const { runTool } = createToolActivities([getWeather], { forecast: (city: string) => `sunny in ${city}` } satisfies Weather);
    const result = await env.run(runTool, { name: 'get_weather', toolCallId: '1.1', args: { city: 'Lyon' } });
    expect(result).toMatchObject({ status: 'ok', result: { city: 'Lyon', sky: 'sunny in Lyon' } });
    expect(seen.at(-1)).toMatchObject({ toolCallId: '1.1', messages: [], context: { forecast: expect.any(Function) } });
    expect((seen.at(-1) as { abortSignal: unknown }).abortSignal).toBeInstanceOf(AbortSignal);
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
    expect(await env.run(runTool, { name: 'count_down', toolCallId: '2.1', args: { from: 2 } })).toMatchObject({ status: 'ok', result: { left: 0 } });
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
    expect(fail(() => fromAiSdkTool('client_side', tool({ description: 'Ask the browser.', inputSchema: z.object({}), outputSchema: z.string() })))).toMatch(/no execute function/);
    expect(
      fail(() => fromAiSdkTool('json', tool({ description: 'JSON Schema input.', inputSchema: jsonSchema<{ a: string }>({ type: 'object', properties: { a: { type: 'string' } } }), execute: async () => 'x' }))),
    ).toMatch(/inputSchema must be a zod 4 schema/);
    expect(fail(() => fromAiSdkTool('bare', tool({ inputSchema: z.object({}), execute: async () => 'x' })))).toMatch(/needs a description/);
  });
});
