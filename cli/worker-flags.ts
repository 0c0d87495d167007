/**
 * The flags `cairn dev` and `cairn worker` share: which config, and the main Temporal Worker
 * tuning options (the config's `worker: {...}` takes the rest). Light: parsed before the worker
 * loads. Node-only.
 */
import type { WorkerTuning } from '../runtime/worker.js';
import { UsageError } from './errors.js';

/** `--max-…` flags as Worker options; each a positive integer. */
export function tuningFlags(values: Record<string, string | boolean | undefined>): WorkerTuning {
  const count = (flag: string): number | undefined => {
    const text = values[flag];
    if (text === undefined || typeof text === 'boolean') return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a whole number above 0, not "${text}"`);
    return n;
  };
  const tuning = {
    maxCachedWorkflows: count('max-cached-workflows'),
    maxConcurrentWorkflowTaskExecutions: count('max-concurrent-workflow-tasks'),
    maxConcurrentActivityTaskExecutions: count('max-concurrent-activities'),
  };
  return Object.fromEntries(Object.entries(tuning).filter(([, v]) => v !== undefined));
}

/** The flags `tuningFlags` reads, for parseCommandLine and --help. */
export const TUNING_OPTIONS = {
  config: { type: 'string' },
  'max-cached-workflows': { type: 'string' },
  'max-concurrent-workflow-tasks': { type: 'string' },
  'max-concurrent-activities': { type: 'string' },
} as const;

export const TUNING_HELP = `  --config <file>                      The project's config (default: the nearest cairn.config.ts)
  --max-cached-workflows <n>           Workflow runs kept in the worker's cache (Temporal's default: by memory)
  --max-concurrent-workflow-tasks <n>  Workflow tasks run at once (default 40)
  --max-concurrent-activities <n>      Model calls and tool calls run at once (default 100)`;
