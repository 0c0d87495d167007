/**
 * Where a Temporal server is, the task queue Cairn uses by default, and links into the Temporal
 * UI: shared by the worker and the CLI's client commands. It imports nothing, so client code
 * (`cairn run`, `--help`) uses it without loading @temporalio/worker and its native bridge.
 */

/** The task queue `cairn dev` and `cairn worker` poll and `cairn run` starts runs on. */
export const DEFAULT_TASK_QUEUE = 'cairn';

export interface TemporalTarget {
  readonly address: string;
  readonly namespace: string;
  /** Base URL of the Temporal UI for this server, when known. */
  readonly uiUrl?: string;
}

/** The UI for a server at `address`: TEMPORAL_UI_URL, else the dev server's UI when the server is local. */
export function uiUrlFor(address: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  return env.TEMPORAL_UI_URL || (/^(localhost|127\.0\.0\.1|\[::1\])(:|$)/.test(address) ? 'http://localhost:8233' : undefined);
}

/** The Temporal UI page of one run (of its first execution when `runId` is given). */
export function runUrl(target: TemporalTarget, workflowId: string, runId?: string): string | undefined {
  if (!target.uiUrl) return undefined;
  const base = `${target.uiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(target.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}
