/**
 * The flags `cairn dev` and `cairn worker` share: which config, and the main Temporal Worker
 * tuning options (the config's `worker: {...}` takes the rest). Light: parsed before the worker
 * loads. Sizing them: docs/operations.md. Node-only.
 */
import type { WorkerTuning } from '../runtime/worker.js';
import { UsageError } from './errors.js';

type PollerBehavior = NonNullable<WorkerTuning['workflowTaskPollerBehavior']>;

/** The tuning flags as Worker options; counts are positive integers, pollers a count or `auto`. */
export function tuningFlags(values: Record<string, string | boolean | undefined>): WorkerTuning {
  const text = (flag: string): string | undefined => {
    const value = values[flag];
    return typeof value === 'string' ? value : undefined;
  };
  const count = (flag: string, value = text(flag)): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1)
      throw new UsageError(
        `--${flag} must be a whole number above 0${flag.endsWith('pollers') ? ' or "auto"' : ''}, not "${value}"`,
      );
    return n;
  };
  // SDK 1.24 reads pollers only from the *PollerBehavior options: maxConcurrentWorkflowTaskPolls
  // and maxConcurrentActivityTaskPolls are still typed but ignored.
  const pollers = (flag: string): PollerBehavior | undefined => {
    const value = text(flag);
    if (value === undefined) return undefined;
    return value.trim() === 'auto' ? { type: 'autoscaling' } : { type: 'simple-maximum', maximum: count(flag, value) };
  };
  const tuning = {
    maxCachedWorkflows: count('max-cached-workflows'),
    maxConcurrentWorkflowTaskExecutions: count('max-concurrent-workflow-tasks'),
    maxConcurrentActivityTaskExecutions: count('max-concurrent-activities'),
    workflowTaskPollerBehavior: pollers('workflow-task-pollers'),
    activityTaskPollerBehavior: pollers('activity-task-pollers'),
  };
  return Object.fromEntries(Object.entries(tuning).filter(([, v]) => v !== undefined));
}

/** The flags `tuningFlags` reads, for parseCommandLine and --help. */
export const TUNING_OPTIONS = {
  config: { type: 'string' },
  'max-cached-workflows': { type: 'string' },
  'max-concurrent-workflow-tasks': { type: 'string' },
  'max-concurrent-activities': { type: 'string' },
  'workflow-task-pollers': { type: 'string' },
  'activity-task-pollers': { type: 'string' },
} as const;

export const TUNING_HELP = `  --config <file>                      The project's config (default: the nearest cairn.config.ts)
  --max-cached-workflows <n>           Runs kept in the worker's workflow cache, ~1 MiB each; at least
                                       the runs in flight at once (Temporal's default: by heap size)
  --max-concurrent-workflow-tasks <n>  Workflow tasks run at once (default 40, at most the cache size)
  --max-concurrent-activities <n>      Model calls and tool calls run at once (default 100)
  --workflow-task-pollers <n|auto>     Workflow task polls open at once (default 10), or autoscaled
  --activity-task-pollers <n|auto>     Activity task polls open at once (default 10), or autoscaled
                                       (see docs/operations.md)`;
