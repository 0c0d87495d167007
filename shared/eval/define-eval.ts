/**
 * defineEval: what `cairn eval` checks — an agent, the change to try (a candidate: model,
 * instructions, tools, policy), the cases (recorded runs, or prompts with expectations), the
 * scorers and the gates. The module that exports it is bundled into the evaluation's workflow
 * code (its candidate agent runs there), so it must be workflow-safe like an agents module: it
 * imports agents, tools, zod and `cairn-agents/eval`, nothing Node-only. Deterministic.
 */
import type { z } from 'zod';
import { defineAgent, type Agent } from '../agent/define-agent.js';
import type { PolicyOverrides } from '../agent/agent-policy.js';
import { DefinitionError } from '../failures/definition-error.js';
import type { JsonValue } from '../json/json.js';
import type { AnyTool } from '../tools/define-tool.js';

/**
 * How a case's tool calls are answered. `strict`: only from the recording, matched by tool name
 * and argument hash; any other call fails the case. `lenient`: a call the recording lacks gets the
 * nearest recorded call of the same tool, and the mismatch is reported. `live`: like `lenient`, but
 * a tool declared read-only (`sideEffects: 'none'`) that the recording lacks runs for real. A tool
 * with side effects (`idempotent`, `once`) never runs in an evaluation.
 */
export type ToolMode = 'strict' | 'lenient' | 'live';
export const TOOL_MODES: readonly ToolMode[] = ['strict', 'lenient', 'live'];

/** The change to evaluate, against the agent as recorded. Everything left out stays as recorded. */
export interface Candidate {
  /** A short name for reports (default `candidate`). */
  readonly name?: string;
  /** Another model spec (`openai:gpt-4.1`, `scripted:…`), resolved by the evaluation's worker. */
  readonly model?: string;
  readonly instructions?: string;
  /** Tools replaced by name (a new version: another description, schema or approval rule), added, or removed (`null`). */
  readonly tools?: Readonly<Record<string, AnyTool | null>>;
  /** Policy overrides on top of the agent's and the recorded run's. */
  readonly policy?: PolicyOverrides;
}

/** A case that was never recorded: a prompt, and what a good run does. */
export interface DatasetCase {
  readonly id: string;
  readonly prompt: string;
  /** The answer a good run gives, for the `exact` scorer. */
  readonly expected?: string;
  /** Answers to questions the run may ask, by question text. */
  readonly answers?: Readonly<Record<string, JsonValue>>;
  readonly tenant?: string;
}

/** Where cases come from; any mix. */
export interface CaseSources {
  /** History files or folders of them (`temporal workflow show --output json`, `cairn eval --export`), relative to the eval module. */
  readonly histories?: readonly string[];
  /** Closed runs on the server, by a visibility query (`CairnAgent="support" AND CloseTime > "2026-11-01"`). */
  readonly query?: string;
  /** At most this many runs from `query` (default 100). */
  readonly limit?: number;
  readonly dataset?: readonly DatasetCase[];
}

/** What a scorer sees of one lane's run of a case. */
export interface ScoreInput {
  readonly caseId: string;
  readonly prompt: string;
  /** The run's answer (null when it has none). */
  readonly answer: string | null;
  /** What the recorded run answered, or the dataset case's `expected`. */
  readonly expected: string | null;
  /** `answered`, or the code the run ended with. */
  readonly outcome: string;
  /** The tools the run called, in order. */
  readonly toolCalls: readonly { readonly name: string; readonly args: JsonValue }[];
}

/** A score from 0 to 1, with why; a bare number or boolean is accepted too. */
export interface Score {
  readonly score: number;
  readonly reason?: string;
}

/** One way to score an answer. `pass` is the lowest score that passes (default 1). */
export type Scorer =
  | { readonly kind: 'exact'; readonly name: string; readonly pass?: number }
  | { readonly kind: 'contains'; readonly name: string; readonly text: string; readonly pass?: number }
  | { readonly kind: 'schema'; readonly name: string; readonly schema: z.ZodType; readonly pass?: number }
  | {
      readonly kind: 'function';
      readonly name: string;
      readonly fn: (input: ScoreInput) => number | boolean | Score | Promise<number | boolean | Score>;
      readonly pass?: number;
    }
  | {
      readonly kind: 'judge';
      readonly name: string;
      /** The judge's model spec, resolved like any model of the worker. */
      readonly model: string;
      /** What a good answer does, for the judge. */
      readonly rubric: string;
      readonly pass?: number;
    };

/** The answer equals the recorded answer (or the case's `expected`), whitespace trimmed. */
export const exact = (options: { name?: string } = {}): Scorer => ({ kind: 'exact', name: options.name ?? 'exact' });
/** The answer contains `text` (case-insensitive). */
export const contains = (text: string, options: { name?: string } = {}): Scorer => ({
  kind: 'contains',
  name: options.name ?? `contains ${JSON.stringify(text)}`,
  text,
});
/** The answer is JSON that `schema` accepts. */
export const matchesSchema = (schema: z.ZodType, options: { name?: string } = {}): Scorer => ({
  kind: 'schema',
  name: options.name ?? 'schema',
  schema,
});
/** Your own scorer: a number from 0 to 1, a boolean, or `{ score, reason }`. */
export const scorer = (
  name: string,
  fn: (input: ScoreInput) => number | boolean | Score | Promise<number | boolean | Score>,
  options: { pass?: number } = {},
): Scorer => ({ kind: 'function', name, fn, ...options });
/** A model judges the answer against `rubric`; it answers PASS or FAIL with a reason. */
export const judge = (model: string, rubric: string, options: { name?: string; pass?: number } = {}): Scorer => ({
  kind: 'judge',
  name: options.name ?? 'judge',
  model,
  rubric,
  ...(options.pass !== undefined && { pass: options.pass }),
});

/** When `cairn eval` exits non-zero. Every gate compares the candidate with the baseline lane on the same cases. */
export interface Gates {
  /** The candidate's pass rate may drop by at most this many points (0–1; default 0: any drop fails). */
  readonly maxPassRateDrop?: number;
  /** The lowest pass rate the candidate may have (0–1). */
  readonly minPassRate?: number;
  /** Cost may rise by at most this share (0.1 = 10%). */
  readonly maxCostIncrease?: number;
  /** A case that asks a person who was not asked in the recording fails the evaluation (default true). */
  readonly failOnNewHumanAsk?: boolean;
}

export interface EvalConfig {
  /** The agent as it was recorded (its cases must be its runs). */
  readonly agent: Agent;
  readonly candidate: Candidate;
  readonly cases: CaseSources;
  readonly scorers?: readonly Scorer[];
  /** Default `strict`. */
  readonly tools?: ToolMode;
  readonly gates?: Gates;
  /** Cases run at once (default 8). */
  readonly concurrency?: number;
}

const EVAL = Symbol.for('cairn.Eval');

export interface EvalDefinition extends EvalConfig {
  readonly [EVAL]: true;
}

export function isEvalDefinition(value: unknown): value is EvalDefinition {
  return typeof value === 'object' && value !== null && (value as { [EVAL]?: unknown })[EVAL] === true;
}

/** Checks and returns an evaluation; export it (as the default export) from an eval module. */
export function defineEval(config: EvalConfig): EvalDefinition {
  const problem = (text: string) => new DefinitionError('invalid_eval', `defineEval: ${text}`);
  if (!config || typeof config !== 'object') throw problem('give it { agent, candidate, cases }.');
  if (!config.agent || typeof config.agent.name !== 'string') throw problem('`agent` must be a defineAgent value.');
  if (!config.candidate || typeof config.candidate !== 'object')
    throw problem('`candidate` must say what changes: { model?, instructions?, tools?, policy? }.');
  const { histories, query, dataset } = config.cases ?? {};
  if (!histories?.length && query === undefined && !dataset?.length)
    throw problem('`cases` needs histories, a query or a dataset.');
  if (config.tools !== undefined && !TOOL_MODES.includes(config.tools))
    throw problem(`\`tools\` is one of ${TOOL_MODES.join(', ')}.`);
  const ids = new Set<string>();
  for (const item of dataset ?? []) {
    if (typeof item.id !== 'string' || item.id === '' || typeof item.prompt !== 'string' || item.prompt.trim() === '')
      throw problem('every dataset case needs an `id` and a `prompt`.');
    if (ids.has(item.id)) throw problem(`two dataset cases have the id "${item.id}".`);
    ids.add(item.id);
  }
  // Fails here, naming the change, rather than in every run.
  candidateAgent(config.agent, config.candidate);
  return Object.freeze({ ...config, [EVAL]: true as const });
}

/**
 * The agent a candidate makes: same name, the candidate's instructions and tools. Its model and
 * policy go into each run's input instead (on top of the recorded run's). Deterministic.
 */
export function candidateAgent(agent: Agent, candidate: Candidate): Agent {
  const changes = candidate.tools ?? {};
  if (candidate.instructions === undefined && Object.keys(changes).length === 0) return agent;
  const kept = agent.tools.filter((tool) => !(tool.name in changes)).map((tool) => tool);
  const tools = [...kept];
  for (const [name, tool] of Object.entries(changes)) {
    if (tool === null) continue;
    if (tool.name !== name)
      throw new DefinitionError('invalid_eval', `candidate.tools.${name} is a tool named "${tool.name}".`);
    tools.push(tool);
  }
  return defineAgent({
    ...agent,
    instructions: candidate.instructions ?? agent.instructions,
    tools,
  });
}

/** The two lanes of an evaluation: the agent as recorded, and the candidate. */
export type EvalLane = 'baseline' | 'candidate';

/**
 * The agents a lane's workflow code serves, from the eval module's exports (`exportName`, default
 * `default`): the generated bundle entry calls this. Throws DefinitionError when there is no eval.
 */
export function evalLaneAgents(
  moduleExports: Readonly<Record<string, unknown>>,
  lane: EvalLane,
  exportName = 'default',
): Agent[] {
  const definition = moduleExports[exportName];
  if (!isEvalDefinition(definition))
    throw new DefinitionError(
      'invalid_eval',
      `The eval module's \`${exportName}\` export is not a defineEval value (export default defineEval({ agent, candidate, cases })).`,
    );
  return [lane === 'baseline' ? definition.agent : candidateAgent(definition.agent, definition.candidate)];
}
