/**
 * Stand-ins for the web-stream classes that Temporal's workflow sandbox lacks, put first in every
 * workflow bundle Cairn makes (runtime/workflow-bundle.ts). Modules that only *define* subclasses
 * of them as they load then load in workflow code: `ai` 7 imports eventsource-parser (through
 * @ai-sdk/provider-utils), whose `class EventSourceParserStream extends TransformStream` would
 * otherwise fail every workflow task of an agents module that imports `tool` from `ai`. Nothing
 * workflow code does needs a stream: constructing one throws, saying why. Workflow code (sandbox),
 * deterministic; it changes nothing where the classes exist.
 */

const MISSING = [
  'ReadableStream',
  'WritableStream',
  'TransformStream',
  'TextDecoderStream',
  'TextEncoderStream',
] as const;

function standIn(name: string): new () => never {
  return class {
    constructor() {
      throw new TypeError(
        `${name} is not available in workflow code (Temporal's sandbox has no web streams). ` +
          "Streams belong in a tool's execute, which runs in the worker (an activity), not in the workflow.",
      );
    }
  } as unknown as new () => never;
}

const scope = globalThis as Record<string, unknown>;
for (const name of MISSING) if (scope[name] === undefined) scope[name] = standIn(name);

export {};
