/**
 * MCP tasks over runs: the SDK's `TaskStore` (experimental tasks) where a task is a run — the task
 * id is its workflow id, its status read from Temporal on every ask (working, input_required with
 * what is asked, completed, failed, cancelled), its result the tool result the call would have
 * given. Nothing is kept here, so a task outlives the session and the server that created it: a
 * new session of the same tenant (or, with no `authorize`, any session) reads it on. A run of
 * another tenant, or not started by this server's tools, is not found. Cancelling a task cancels
 * the run gracefully. A task is read within the client's read deadline (without the worker's answer,
 * from what Temporal keeps, its status message saying so); a list is read from visibility alone,
 * never a Query per listed run. Node-only (client side).
 */
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { CallToolResult, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type { CairnClient } from '../../client/cairn-client.js';
import { isTerminal, listedStatus, type RunStatus, type RunStatusName } from '../a2a/run-status.js';
import { describePending, RunInputError } from '../a2a/run-input.js';
import { TENANT_MEMO } from '../../workflows/contract/search-attributes.js';
import { result, STALE_NOTE, statusOf } from './run-result.js';
import { listRuns } from '../../client/list-runs.js';

/** How often a client is told to ask again, in ms. */
export const TASK_POLL_MS = 1_000;
/** The most runs one tasks/list looks through, and the most tasks a page holds. */
const MAX_SCAN = 1_000;
const PAGE = 50;

const STATUS: Record<RunStatusName, Task['status']> = {
  working: 'working',
  input_required: 'input_required',
  completed: 'completed',
  failed: 'failed',
  canceled: 'cancelled',
};

export interface RunTaskStoreOptions {
  readonly client: CairnClient;
  /** Workflow ids of the runs this server starts (`runPrefix`). */
  readonly prefix: string;
  /** The tenant of the session (from `authorize` at initialize); undefined for none. */
  readonly tenant: string | undefined;
  /** How a cancel reads in the run. */
  readonly cancelReason: string;
}

export class RunTaskStore implements TaskStore {
  constructor(private readonly options: RunTaskStoreOptions) {}

  /** The task of the run the tool call just started or continued (`context.workflowId`). */
  async createTask(params: CreateTaskOptions): Promise<Task> {
    const workflowId = params.context?.workflowId;
    if (typeof workflowId !== 'string') throw new Error('An MCP task is created for a run (context.workflowId).');
    const status = await this.#status(workflowId);
    if (!status) throw new Error(`No run "${workflowId}".`);
    return taskOf(status);
  }

  async getTask(taskId: string): Promise<Task | null> {
    const status = await this.#status(taskId);
    return status ? taskOf(status) : null;
  }

  /** The run holds its own result. */
  async storeTaskResult(): Promise<void> {}

  async getTaskResult(taskId: string): Promise<Result> {
    const status = await this.#status(taskId);
    if (!status) throw new Error(`Task not found: ${taskId}`);
    return result(status) satisfies CallToolResult;
  }

  /** Only a cancel changes a run from outside: the run takes it at its next step and ends gracefully. */
  async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
    if (status !== 'cancelled') return;
    if (!(await this.#status(taskId))) throw new Error(`Task not found: ${taskId}`);
    await this.options.client.run(taskId).cancel(this.options.cancelReason);
  }

  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const offset = cursor ? Number(cursor) : 0;
    if (!Number.isSafeInteger(offset) || offset < 0) throw new Error('The cursor is not one this server gave.');
    const tasks: Task[] = [];
    let seen = 0;
    let scanned = 0;
    // Newest first: a chain's latest run comes before the runs it continued (listed once).
    const listed = new Set<string>();
    for await (const info of listRuns(this.options.client.temporal, { query: `WorkflowType = 'agentRun'` })) {
      if (++scanned > MAX_SCAN) break;
      if (!this.#mine(info.workflowId, info.memo?.[TENANT_MEMO]) || listed.has(info.workflowId)) continue;
      listed.add(info.workflowId);
      if (seen++ < offset) continue;
      if (tasks.length === PAGE) return { tasks, nextCursor: String(offset + PAGE) };
      tasks.push(taskOf(listedStatus(info), false));
    }
    return { tasks };
  }

  #mine(workflowId: string, tenant: unknown): boolean {
    return workflowId.startsWith(this.options.prefix) && (tenant ?? undefined) === this.options.tenant;
  }

  /** The run's status, or undefined when it is not a task here (no such run, another tenant's, another server's). */
  async #status(taskId: string): Promise<RunStatus | undefined> {
    if (!taskId.startsWith(this.options.prefix)) return undefined;
    try {
      const status = await statusOf(
        this.options.client.run(taskId),
        undefined,
        this.options.tenant === undefined ? {} : { tenant: this.options.tenant },
      );
      return this.#mine(taskId, status.memo?.[TENANT_MEMO]) ? status : undefined;
    } catch (error) {
      if (RunInputError.isInstance(error) && error.code === 'unknown_run') return undefined;
      throw error;
    }
  }
}

/** The run as a task; a single read made without the run's worker says so in its status message. */
function taskOf(status: RunStatus, single = true): Task {
  const created = status.startTime ?? new Date();
  const task = taskOfStatus(status, created);
  if (!single || !status.state?.stale) return task;
  return { ...task, statusMessage: task.statusMessage ? `${task.statusMessage}\n${STALE_NOTE}` : STALE_NOTE };
}

function taskOfStatus(status: RunStatus, created: Date): Task {
  return {
    taskId: status.workflowId,
    status: STATUS[status.status],
    ttl: null,
    createdAt: created.toISOString(),
    lastUpdatedAt: (status.closeTime ?? new Date()).toISOString(),
    ...(!isTerminal(status.status) && { pollInterval: TASK_POLL_MS }),
    ...(status.status === 'input_required' && status.pending && { statusMessage: describePending(status.pending) }),
    ...((status.status === 'failed' || status.status === 'canceled') &&
      status.reason && { statusMessage: status.reason }),
  };
}
