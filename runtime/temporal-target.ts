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

/**
 * The UI for a server at `address`: TEMPORAL_UI_URL, else, for a local server, the dev server's
 * UI on its port + 1000 (the Temporal CLI's convention, and `cairn dev`'s: 7233 → 8233).
 */
export function uiUrlFor(address: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.TEMPORAL_UI_URL) return env.TEMPORAL_UI_URL;
  const local = /^(localhost|127\.0\.0\.1|\[::1\])(?::(\d+))?$/.exec(address);
  return local ? `http://localhost:${Number(local[2] ?? 7233) + 1000}` : undefined;
}

/** The Temporal UI page of one run (of its first execution when `runId` is given). */
export function runUrl(target: TemporalTarget, workflowId: string, runId?: string): string | undefined {
  if (!target.uiUrl) return undefined;
  const base = `${target.uiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(target.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}
