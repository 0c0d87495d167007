/**
 * What a worker's tools need of its deps (`defineTool({ needs })`), checked when the worker is
 * created: a key a tool reads that the deps lack is the deployment's mistake (a misspelled config
 * key, a forgotten service), said in one line before any run starts — not a tool failure a run
 * would ask a customer about. Pure.
 */
import type { AnyTool } from './define-tool.js';

/** One line naming each tool whose needs the deps lack, or undefined when every tool has its deps. */
export function missingNeeds(tools: readonly AnyTool[], deps: unknown): string | undefined {
  const have = typeof deps === 'object' && deps !== null ? deps : typeof deps === 'function' ? deps : undefined;
  const missing = tools.flatMap((tool) => {
    const lacking = (tool.needs ?? []).filter(
      (key) => have === undefined || (have as Record<string, unknown>)[key] === undefined,
    );
    return lacking.length > 0 ? [`${tool.name} needs deps.${lacking.join(', deps.')}`] : [];
  });
  if (missing.length === 0) return undefined;
  const given =
    have === undefined
      ? 'the worker was given no deps'
      : `the worker's deps have: ${Object.keys(have).join(', ') || 'nothing'}`;
  return `${missing.join('; ')} — ${given}. Pass them as createCairnWorker({ deps }) or \`deps\` in cairn.config.ts.`;
}
