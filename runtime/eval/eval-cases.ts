/**
 * An evaluation's cases: recorded runs from history files or folders, runs on the server found by
 * a visibility query, and dataset prompts. A case that cannot be evaluated (a corrupt file, a run
 * of another agent, a tool the agent no longer has, arguments its schema now refuses) is a case
 * with an error, never a failure of the whole evaluation. `exportCases` writes a selection to
 * files, so a set of cases can live in a repository. Node-only.
 */
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import type { Agent } from '../../shared/agent/define-agent.js';
import type { AnyTool } from '../../shared/tools/define-tool.js';
import type { CaseSources, DatasetCase } from '../../shared/eval/define-eval.js';
import { recordingOf, RecordingError, type Recording } from '../../shared/eval/recording.js';
import { isJsonObject } from '../../shared/json/json.js';
import { readHistoryFile, serverHistories, type ReplaySource } from '../replay.js';
import { historyEvents, type PayloadDecoding } from './history-events.js';
import { historyToJson, type History } from './history-json.js';

/** Why a case cannot be evaluated. */
export type CaseErrorCode =
  | 'unreadable'
  | 'not_an_agent_run'
  | 'still_running'
  | 'other_agent'
  | 'unknown_tool'
  | 'schema_changed'
  /** One run of a chain continued as new: the chain is not followed (yet). */
  | 'continued_as_new'
  /** The run failed, or was cancelled, terminated or timed out: there is no end to compare with. */
  | 'did_not_finish'
  /** The evaluation could not run the case (the server refused, a lane's history could not be read): the message says why. */
  | 'harness_failed';

export interface EvalCase {
  /** Unique in the evaluation: the run's workflow id, the file's name, or the dataset id. */
  readonly id: string;
  /** Where it came from: a file, `run <runId>`, or `dataset`. */
  readonly source: string;
  /** The recorded run's workflow id (cases from histories). */
  readonly workflowId?: string;
  /**
   * Set for a child run of an agent tool whose parent is a case too: it is not evaluated on its
   * own, it serves its parent's child run (lane-run.ts).
   */
  readonly childOf?: string;
  readonly recording?: Recording;
  readonly dataset?: DatasetCase;
  /** A run still open (open-case.ts): its recording ends where it waits. */
  readonly open?: true;
  readonly error?: { readonly code: CaseErrorCode; readonly message: string };
}

/** The cases `sources` name; `baseDir` resolves relative history paths. */
export async function loadCases(
  sources: CaseSources,
  agent: Agent,
  options: { readonly baseDir: string; readonly client?: Client; readonly decoding?: PayloadDecoding },
): Promise<EvalCase[]> {
  const cases: EvalCase[] = [];
  const taken = new Set<string>();
  const add = (item: EvalCase) => {
    let id = item.id;
    for (let n = 2; taken.has(id); n++) id = `${item.id}~${n}`;
    taken.add(id);
    cases.push({ ...item, id });
  };
  const fromHistory = async (id: string, source: string, history: unknown): Promise<EvalCase> => {
    try {
      const recording = recordingOf(await historyEvents(history, options.decoding));
      const error = caseProblem(recording, agent);
      return { id, source, workflowId: id, recording, ...(error && { error }) };
    } catch (error) {
      if (error instanceof RecordingError) return { id, source, error: { code: error.code, message: error.message } };
      throw error;
    }
  };
  for (const path of sources.histories ?? []) {
    const full = isAbsolute(path) ? path : resolve(options.baseDir, path);
    for (const file of await historyFiles(full)) {
      try {
        const read = await readHistoryFile(file);
        add(await fromHistory(read.workflowId, read.source ?? file, read.history));
      } catch (error) {
        add({ id: file, source: file, error: { code: 'unreadable', message: (error as Error).message } });
      }
    }
  }
  if (sources.query !== undefined) {
    if (!options.client) throw new Error('Cases from a query need a Temporal client.');
    for await (const run of withChildren(options.client, sources.query, sources.limit ?? 100))
      add(await fromHistory(run.workflowId, run.source ?? run.workflowId, run.history));
  }
  for (const item of sources.dataset ?? []) add({ id: item.id, source: 'dataset', dataset: item });
  // Agent tools' child runs (`<parent>/<call>`) whose parent is here serve their parent's lanes.
  const ids = new Set(cases.flatMap((item) => (item.workflowId ? [item.workflowId] : [])));
  return cases.map((item) => {
    const cut = item.workflowId?.lastIndexOf('/') ?? -1;
    const parent = cut > 0 ? item.workflowId!.slice(0, cut) : undefined;
    return parent !== undefined && ids.has(parent) ? { ...item, childOf: parent } : item;
  });
}

/** A file, or the `.json` files of a folder (sorted); a missing path is one unreadable case. */
async function historyFiles(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) return [path];
  return (await readdir(path))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(path, name));
}

/** Why `recording` cannot be a case of `agent`, or undefined. `open`: a run not closed yet (open-case.ts) has no end to check. */
export function caseProblem(
  recording: Recording,
  agent: Agent,
  options: { readonly open?: boolean } = {},
): EvalCase['error'] | undefined {
  if (recording.agent !== agent.name)
    return {
      code: 'other_agent',
      message: `This run is of agent "${recording.agent}", not "${agent.name}".`,
    };
  if (recording.input.carried !== undefined || recording.end.status === 'continued_as_new')
    return {
      code: 'continued_as_new',
      message:
        'This history is one run of a chain continued as new; an evaluation replays whole runs, and does not follow a chain yet.',
    };
  const { status, result } = recording.end;
  const outcome = isJsonObject(result?.outcome) ? result.outcome : undefined;
  if (!options.open && (status !== 'completed' || outcome?.code === 'cancelled'))
    return {
      code: 'did_not_finish',
      message: `This run ${status === 'completed' ? 'was cancelled' : status === 'failed' ? `failed (${recording.end.failure ?? 'no reason'})` : `was ${status.replace('_', ' ')}`}: there is no end to compare a replay with.`,
    };
  for (const run of recording.toolRuns) {
    const tool = agent.tools.find((t) => t.name === run.name);
    // MCP tools are listed when a run starts: they are not the agent's own, and are served as recorded.
    if (!tool) {
      if (agent.mcpServers.length > 0) continue;
      return {
        code: 'unknown_tool',
        message: `The recorded run called ${run.name} (call ${run.toolCallId}), which agent "${agent.name}" no longer has.`,
      };
    }
    const checked = tool.input.safeParse(run.args);
    if (!checked.success)
      return {
        code: 'schema_changed',
        message: `The recorded arguments of ${run.name} (call ${run.toolCallId}) no longer fit its schema (${checked.error.issues
          .slice(0, 3)
          .map(issueText)
          .join('; ')}): the tool changed after this run was recorded.`,
      };
  }
  return undefined;
}

/**
 * The recorded tool calls whose arguments no longer fit the schema of `tools` (a candidate's
 * changed tools), one line per field: `call <id> of <tool>: <field path>: <message>`. A tool
 * `tools` lacks is not a misfit (the candidate removed it). Deterministic.
 */
export function schemaMisfits(recording: Recording | undefined, tools: ReadonlyMap<string, AnyTool>): string[] {
  return (recording?.toolRuns ?? []).flatMap((run) => {
    const checked = tools.get(run.name)?.input.safeParse(run.args);
    return checked && !checked.success
      ? checked.error.issues.map((issue) => `call ${run.toolCallId} of ${run.name}: ${issueText(issue)}`)
      : [];
  });
}

function issueText(issue: { readonly path: readonly PropertyKey[]; readonly message: string }): string {
  return `${issue.path.map(String).join('.') || 'arguments'}: ${issue.message}`;
}

/** How deep agent tools' child runs are followed. */
const MAX_CHILD_DEPTH = 8;

/**
 * The runs `query` finds (at most `limit`), each followed by the child runs its agent tools started
 * (and theirs), which an evaluation serves its lanes' child runs from.
 */
async function* withChildren(client: Client, query: string, limit: number): AsyncGenerator<ReplaySource> {
  // A child the query finds too comes once.
  const seen = new Set<string>();
  for await (const run of serverHistories(client, { query, limit })) {
    const queue: { run: ReplaySource; depth: number }[] = [{ run, depth: 0 }];
    for (let next = queue.shift(); next; next = queue.shift()) {
      if (seen.has(next.run.workflowId)) continue;
      seen.add(next.run.workflowId);
      yield next.run;
      if (next.depth >= MAX_CHILD_DEPTH) continue;
      const events = (next.run.history as History).events ?? [];
      for (const event of events) {
        const childId = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
        if (!childId) continue;
        const history = await client.workflow
          .getHandle(childId)
          .fetchHistory()
          .catch(() => undefined);
        if (history)
          queue.push({
            run: { workflowId: childId, history, source: `child of ${next.run.workflowId}` },
            depth: next.depth + 1,
          });
      }
    }
  }
}

/** Writes the histories of the runs `query` finds (and their agent tools' child runs) into `dir`, one `<workflowId>.json` each; returns the files. */
export async function exportCases(
  client: Client,
  options: { readonly query: string; readonly limit?: number; readonly dir: string },
): Promise<string[]> {
  await mkdir(options.dir, { recursive: true });
  const files: string[] = [];
  for await (const run of withChildren(client, options.query, options.limit ?? 100)) {
    const file = join(options.dir, `${run.workflowId.replace(/[^\w.-]+/g, '_')}.json`);
    await writeFile(file, `${historyToJson(run.history as History)}\n`);
    files.push(file);
  }
  return files;
}
