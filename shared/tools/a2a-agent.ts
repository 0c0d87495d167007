/**
 * a2aAgent: a remote A2A agent as a tool, like `mcpServer` for MCP servers and `agentTool` for
 * Cairn agents in the same worker. The model calls it with a message; the call is an activity that
 * sends the message and follows the remote task until it ends or waits (bounded, heartbeating).
 * When the remote waits for input, `onInputRequired` decides who answers: `'person'` (the default)
 * makes it a clarification of the calling run — the tool fails with the remote's question as its
 * clarifying question, the planner asks a person, and the model sends the answer back to the same
 * remote task — or `'model'`, where the tool's result says what is asked and how to answer.
 * Failures fall into the taxonomy (unavailable, timeout, rejected, invalid output) with the same
 * budgets, back-off and at-most-once rules as any tool. Workflow-safe, deterministic: the contract
 * only; the worker runs it (activities/a2a-activity.ts, which loads `@a2a-js/sdk`).
 */
import { z } from 'zod';
import { DefinitionError } from '../failures/definition-error.js';
import { defineTool, type AnyTool, type ApprovalRule, type SideEffects } from './define-tool.js';
import type { ReviewConfig } from './review-config.js';

/** What the model calls a remote agent with. */
export const a2aCallSchema = z
  .object({
    message: z
      .string()
      .trim()
      .min(1)
      .max(20_000)
      .optional()
      .describe('What to ask the remote agent; or, continuing a task, the answer to its question.'),
    taskId: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe(
        "Continue this remote task (from an earlier result or question): its question's answer goes in message or reply.",
      ),
    reply: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'A structured reply to the remote task: { "answer": … } for its question, or { "decision", "toolCallId", "argsHash" } for a call it holds for review.',
      ),
  })
  .refine((call) => call.message !== undefined || call.taskId !== undefined, {
    message: 'Give a message (a new task) or the taskId of a task to continue.',
  });
export type A2ACall = z.output<typeof a2aCallSchema>;

export interface A2AAgentConfig {
  /** The remote agent's base URL (its card is at `<url>/.well-known/agent-card.json`). */
  readonly url: string;
  /** The tool's name (snake_case). */
  readonly name: string;
  /** What the model reads: when to hand a task to this agent. */
  readonly description: string;
  /** Who answers the remote agent's questions and reviews: a person through this run (default), or the model. */
  readonly onInputRequired?: 'person' | 'model';
  /** Headers for every request (e.g. Authorization). Used by the worker only: never in history. */
  readonly headers?: Readonly<Record<string, string>>;
  /** How long one call follows the remote task before it is a `timeout` (the task goes on; a later call continues it by taskId). Default 60 s. */
  readonly timeoutMs?: number;
  /** Default `'once'`: a remote task is never re-sent by a back-off. */
  readonly sideEffects?: SideEffects;
  readonly approval?: ApprovalRule<A2ACall>;
  readonly review?: ReviewConfig;
  /**
   * Require a signed agent card (A2A 1.0 signed cards): before any call the worker checks the
   * card's JWS signatures against these public keys, and a card that is unsigned, signed by
   * another key or altered after signing is refused (`tool_unavailable`, the message says which);
   * no message is sent. Default: any card is used as it comes.
   */
  readonly trust?: A2ACardTrust;
}

/**
 * The keys an `a2aAgent` tool trusts to sign its remote agent's card. Public keys only (they are
 * no secret and sit in the tool's settings): Ed25519 or P-256, as SPKI PEM text
 * (`-----BEGIN PUBLIC KEY-----`) or a public JWK (`{ kty, crv, x[, y][, kid] }`). A signature's
 * `kid` names a key by its RFC 7638 thumbprint (a Cairn server's default) or by the JWK's `kid`.
 */
export interface A2ACardTrust {
  readonly keys: readonly (string | A2APublicJwk)[];
}

/** A public key as a JWK (RFC 7517): OKP/Ed25519 (`x`) or EC/P-256 (`x`, `y`). */
export interface A2APublicJwk {
  readonly kty: string;
  readonly crv: string;
  readonly x: string;
  readonly y?: string;
  readonly kid?: string;
}

export interface A2AAgentSettings extends A2AAgentConfig {
  readonly onInputRequired: 'person' | 'model';
  readonly timeoutMs: number;
}

const A2A_AGENT = Symbol.for('cairn.A2AAgent');
export const DEFAULT_A2A_TIMEOUT_MS = 60_000;

/** A tool whose calls go to the remote A2A agent at `url`. Throws DefinitionError for a bad URL. */
export function a2aAgent(config: A2AAgentConfig): AnyTool {
  if (typeof config.url !== 'string' || !/^https?:\/\/\S+$/.test(config.url))
    throw new DefinitionError('invalid_a2a_agent', `a2aAgent ${config.name}: url must be an http(s) URL.`);
  if (config.onInputRequired !== undefined && config.onInputRequired !== 'person' && config.onInputRequired !== 'model')
    throw new DefinitionError('invalid_a2a_agent', `a2aAgent ${config.name}: onInputRequired is 'person' or 'model'.`);
  if (config.trust !== undefined) checkTrust(config.name, config.trust);
  const timeoutMs = config.timeoutMs ?? DEFAULT_A2A_TIMEOUT_MS;
  const settings: A2AAgentSettings = Object.freeze({
    ...config,
    onInputRequired: config.onInputRequired ?? 'person',
    timeoutMs,
  });
  const tool = defineTool({
    name: config.name,
    description: config.description,
    input: a2aCallSchema,
    sideEffects: config.sideEffects ?? 'once',
    approval: config.approval ?? 'never',
    ...(config.review && { review: config.review }),
    // Room for following the task, plus heartbeats: a worker that dies mid-call is noticed in seconds.
    timeouts: { startToCloseMs: timeoutMs + 15_000, heartbeatMs: 10_000 },
    execute: () => {
      throw new Error(
        `${config.name} calls a remote A2A agent: the worker runs it (runtime/worker.ts loads activities/a2a-activity.ts).`,
      );
    },
  });
  return Object.freeze({ ...tool, [A2A_AGENT]: settings });
}

/** The trust's shape; the keys themselves are parsed by the worker (Node crypto is not here). */
function checkTrust(name: string, trust: A2ACardTrust): void {
  const keys = (trust as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0)
    throw new DefinitionError('invalid_a2a_agent', `a2aAgent ${name}: trust.keys lists one or more public keys.`);
  keys.forEach((key: unknown, index) => {
    const pem = typeof key === 'string' && /-----BEGIN PUBLIC KEY-----/.test(key);
    const jwk =
      typeof key === 'object' &&
      key !== null &&
      typeof (key as A2APublicJwk).kty === 'string' &&
      typeof (key as A2APublicJwk).x === 'string' &&
      !('d' in key);
    if (!pem && !jwk)
      throw new DefinitionError(
        'invalid_a2a_agent',
        `a2aAgent ${name}: trust.keys[${index}] is not a public key (SPKI PEM "-----BEGIN PUBLIC KEY-----" or a public JWK without "d").`,
      );
  });
}

/** The remote agent a tool calls, when it is an a2aAgent tool (from any copy of this module). */
export function a2aAgentOf(tool: AnyTool): A2AAgentSettings | undefined {
  return (tool as { [A2A_AGENT]?: A2AAgentSettings })[A2A_AGENT];
}
