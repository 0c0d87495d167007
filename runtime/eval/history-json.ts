/**
 * Workflow histories to and from their JSON files (the format `temporal workflow show --output
 * json` writes), with the protobufjs copy `@temporalio/proto` itself loads. An installed project
 * can hold several copies (npm hoists the protobufjs 7 of `@grpc/proto-loader` and nests 8 under
 * each Temporal package), and ProtoJSON refuses a type of another copy ("type must be a Type"):
 * `@temporalio/common`'s `historyToJSON` mixes its own copy with proto's. Self-contained (no
 * relative imports), so a test can load it from another package tree. Node-only.
 */
import { createRequire } from 'node:module';
import type { temporal } from '@temporalio/proto';

export type History = temporal.api.history.v1.IHistory;

interface ProtoType {
  fromObject(object: unknown): unknown;
}
interface ProtoJson {
  toJson(type: ProtoType, message: unknown, options?: object): unknown;
  fromJson(type: ProtoType, json: unknown, options?: { ignoreUnknownFields?: boolean }): History | null;
}

let loaded: { historyType: ProtoType; protojson: ProtoJson } | undefined;

/** The History type of `@temporalio/proto`'s root, and ProtoJSON from the protobufjs that root was built with. */
function historyCodec() {
  if (loaded) return loaded;
  const here = createRequire(import.meta.url);
  const protoMain = here.resolve('@temporalio/proto');
  const beside = createRequire(protoMain);
  const root = beside(protoMain) as { lookupType(name: string): ProtoType };
  const protojson = beside('protobufjs/ext/protojson') as ProtoJson;
  loaded = { historyType: root.lookupType('temporal.api.history.v1.History'), protojson };
  return loaded;
}

/** `history` (decoded, as `fetchHistory` returns it) as JSON text. */
export function historyToJson(history: History): string {
  const { historyType, protojson } = historyCodec();
  return JSON.stringify(protojson.toJson(historyType, historyType.fromObject(history)), null, 2);
}

/** A history from its parsed JSON; throws TypeError when it is not one. Unknown fields (a newer server's) are ignored. */
export function historyFromJson(json: unknown): History {
  const events = (json as { events?: unknown } | null)?.events;
  if (typeof json !== 'object' || json === null || !Array.isArray(events))
    throw new TypeError('Invalid history, expected an object with an array of events');
  const { historyType, protojson } = historyCodec();
  const history = protojson.fromJson(historyType, { events: events.map(fixEvent) }, { ignoreUnknownFields: true });
  if (history === null) throw new TypeError('Invalid history');
  return history;
}

type JsonRecord = Record<string, unknown>;

/** Older tools write enum values in PascalCase ("WorkflowExecutionStarted"); ProtoJSON wants the constant names. */
function fixEvent(event: JsonRecord): JsonRecord {
  const key = Object.keys(event ?? {}).find((name) => name.endsWith('EventAttributes'));
  if (!key) throw new TypeError(`Missing attributes in history event: ${JSON.stringify(event)}`);
  const attributes = event[key] as JsonRecord;
  const taskQueue = attributes.taskQueue as JsonRecord | undefined;
  const failureInfo = attributes.childWorkflowExecutionFailureInfo as JsonRecord | undefined;
  return {
    ...event,
    ...fixEnum(event, 'eventType', 'EVENT_TYPE'),
    [key]: {
      ...attributes,
      ...(taskQueue && { taskQueue: { ...taskQueue, ...fixEnum(taskQueue, 'kind', 'TASK_QUEUE_KIND') } }),
      ...fixEnum(attributes, 'parentClosePolicy', 'PARENT_CLOSE_POLICY'),
      ...fixEnum(attributes, 'workflowIdReusePolicy', 'WORKFLOW_ID_REUSE_POLICY'),
      ...fixEnum(attributes, 'initiator', 'CONTINUE_AS_NEW_INITIATOR'),
      ...fixEnum(attributes, 'retryState', 'RETRY_STATE'),
      ...(failureInfo && {
        childWorkflowExecutionFailureInfo: { ...failureInfo, ...fixEnum(failureInfo, 'retryState', 'RETRY_STATE') },
      }),
    },
  };
}

function fixEnum(object: JsonRecord, key: string, prefix: string): JsonRecord | undefined {
  const value = object[key];
  if (typeof value !== 'string' || !value) return undefined;
  if (value.startsWith(prefix)) return { [key]: value };
  return { [key]: `${prefix}_${value.replace(/[^\b][A-Z]/g, (m) => `${m[0]}_${m[1]}`).toUpperCase()}` };
}
