/**
 * resolveModel: a model spec string (`openai:gpt-4.1-mini`, `scripted:orders-demo`…) to a
 * ModelClient. API keys are read from the environment only and never appear in messages.
 * The built-in providers' packages are optional peers, loaded when a spec first needs one.
 * Worker-side only.
 */
import { createRequire } from 'node:module';
import type * as AnthropicSdk from '@ai-sdk/anthropic';
import type * as OpenAiCompatibleSdk from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { MissingPeerError, requirePeersSync, type OptionalPeer } from '../../shared/optional-peers.js';
import { aiSdkModel } from './ai-sdk-model.js';
import type { ModelClient } from './model-client.js';
import { ModelConfigError } from './model-errors.js';
import type { ModelPrice } from '../../shared/model/model-usage.js';
import type { FlowControlOptions } from './flow-control.js';
import type { TenantBudgetOptions } from './tenant-budgets.js';

/** Environment variables, as `process.env` holds them. */
export type ModelEnvironment = Readonly<Record<string, string | undefined>>;

/** Options for `resolveModel`. */
export interface ResolveModelOptions {
  /** Where keys and base URLs come from. Default: `process.env`. */
  readonly env?: ModelEnvironment;
  /**
   * Clients for `scripted:<name>`, by name. They are live instances, so a scripted model's
   * position in its script and its recorded requests persist across the turns of a run.
   */
  readonly scripts?: Readonly<Record<string, ModelClient>>;
  /** A fetch to use for HTTP providers (tests, proxies). Default: the global fetch. */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * More prefixes, each any AI SDK provider: `{ bedrock: createAmazonBedrock() }` makes
   * `bedrock:<model>` work; an `ai` provider registry works too (`registry:openai:gpt-4.1`).
   * They take precedence over the built-in prefixes.
   */
  readonly providers?: Readonly<Record<string, ModelProvider>>;
  /**
   * Prices per million tokens, by model spec (`openai:gpt-4.1-mini`), model name or provider
   * prefix: each reply's usage gets a `costUsd`, which budgets (`policy.budget.maxCostUsd`) count.
   */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
  /** Limits per provider shared by every worker through Redis, checked before each call (docs/operations.md). */
  readonly flowControl?: FlowControlOptions;
  /** Token and cost budgets per tenant per UTC day and month, shared by every worker through Redis (docs/operations.md, "Per-tenant limits"). */
  readonly tenantBudgets?: TenantBudgetOptions;
}

/** An AI SDK provider (anything with `languageModel(id)`, e.g. ProviderV4), or a model factory. */
export type ModelProvider =
  | { languageModel(modelId: string): LanguageModelV4 }
  | ((modelId: string) => LanguageModelV4);

/** The spec forms `resolveModel` accepts, for error messages and docs. */
export const MODEL_SPEC_FORMS: readonly string[] = [
  'openai:<model>             (OPENAI_API_KEY; optional OPENAI_BASE_URL)',
  'anthropic:<model>          (ANTHROPIC_API_KEY; optional ANTHROPIC_BASE_URL)',
  'ollama:<model>             (optional OLLAMA_BASE_URL, default http://localhost:11434/v1)',
  'openai-compatible:<model>  (CAIRN_MODEL_BASE_URL; optional CAIRN_MODEL_API_KEY)',
  'scripted:<name>            (a script registered with the worker)',
];

const PREFIXES = ['openai', 'anthropic', 'ollama', 'openai-compatible', 'scripted'];
const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
const DEFAULT_OLLAMA_BASE_URL = 'http://localhost:11434/v1';

/**
 * The ModelClient for `spec`. Throws `ModelConfigError` for an unknown prefix, an empty model
 * name, a missing key or base URL, or an unregistered script; the message lists the accepted forms.
 */
export function resolveModel(spec: string, options: ResolveModelOptions = {}): ModelClient {
  const env = options.env ?? process.env;
  const separator = spec.indexOf(':');
  const prefix = separator < 0 ? spec : spec.slice(0, separator);
  const name = separator < 0 ? '' : spec.slice(separator + 1).trim();
  const custom = options.providers && Object.hasOwn(options.providers, prefix) ? options.providers[prefix]! : undefined;
  if (!custom && !PREFIXES.includes(prefix)) {
    const extra = Object.keys(options.providers ?? {});
    fail(
      `Unknown model provider "${prefix}" in "${spec}".${extra.length ? ` This worker also has: ${extra.map((p) => `${p}:`).join(', ')}.` : ''}`,
    );
  }
  if (!name) fail(`Model spec "${spec}" names no model.`);
  if (custom) return aiSdkModel(customModel(custom, name, spec));
  switch (prefix) {
    case 'openai':
      return openAiCompatible(
        'openai',
        spec,
        name,
        {
          baseURL: setting(env, 'OPENAI_BASE_URL') ?? DEFAULT_OPENAI_BASE_URL,
          apiKey:
            setting(env, 'OPENAI_API_KEY') ??
            fail(`Model spec "${spec}" needs OPENAI_API_KEY in the environment.`, ['OPENAI_API_KEY']),
        },
        options.fetch,
      );
    case 'anthropic': {
      const apiKey =
        setting(env, 'ANTHROPIC_API_KEY') ??
        fail(`Model spec "${spec}" needs ANTHROPIC_API_KEY in the environment.`, ['ANTHROPIC_API_KEY']);
      const baseURL = setting(env, 'ANTHROPIC_BASE_URL');
      const { createAnthropic } = builtInProvider<typeof AnthropicSdk>('@ai-sdk/anthropic', spec);
      const provider = createAnthropic({
        apiKey,
        ...(baseURL !== undefined && { baseURL }),
        ...(options.fetch !== undefined && { fetch: options.fetch }),
      });
      return aiSdkModel(provider.languageModel(name), { secrets: [apiKey] });
    }
    case 'ollama':
      return openAiCompatible(
        'ollama',
        spec,
        name,
        {
          baseURL: setting(env, 'OLLAMA_BASE_URL') ?? DEFAULT_OLLAMA_BASE_URL,
        },
        options.fetch,
      );
    case 'openai-compatible':
      return openAiCompatible(
        'openai-compatible',
        spec,
        name,
        {
          baseURL:
            setting(env, 'CAIRN_MODEL_BASE_URL') ??
            fail(`Model spec "${spec}" needs CAIRN_MODEL_BASE_URL in the environment.`, ['CAIRN_MODEL_BASE_URL']),
          apiKey: setting(env, 'CAIRN_MODEL_API_KEY'),
        },
        options.fetch,
      );
    case 'scripted': {
      const scripts = options.scripts ?? {};
      if (Object.hasOwn(scripts, name)) return scripts[name]!;
      const known = Object.keys(scripts);
      return fail(
        `No script named "${name}" is registered (${known.length ? `known: ${known.join(', ')}` : 'none are'}).`,
      );
    }
    default:
      return fail(`Unknown model provider "${prefix}" in "${spec}".`);
  }
}

function openAiCompatible(
  provider: string,
  spec: string,
  model: string,
  settings: { readonly baseURL: string; readonly apiKey?: string | undefined },
  fetch: typeof globalThis.fetch | undefined,
): ModelClient {
  const { apiKey } = settings;
  const { createOpenAICompatible } = builtInProvider<typeof OpenAiCompatibleSdk>('@ai-sdk/openai-compatible', spec);
  const factory = createOpenAICompatible({
    name: provider,
    baseURL: settings.baseURL.replace(/\/+$/, ''),
    ...(apiKey !== undefined && { apiKey }),
    ...(fetch !== undefined && { fetch }),
  });
  return aiSdkModel(factory.chatModel(model), { secrets: apiKey === undefined ? [] : [apiKey] });
}

/** A provider's own "no such model" is a configuration error: retrying will not fix it. */
function customModel(provider: ModelProvider, name: string, spec: string): LanguageModelV4 {
  try {
    return typeof provider === 'function' ? provider(name) : provider.languageModel(name);
  } catch (error) {
    throw new ModelConfigError(`Model spec "${spec}": ${error instanceof Error ? error.message : String(error)}`);
  }
}

const load = createRequire(import.meta.url);

/** A built-in provider's package (an optional peer); a `ModelConfigError` naming it when it is not installed. */
function builtInProvider<T>(peer: OptionalPeer, spec: string): T {
  try {
    return requirePeersSync(`Model spec "${spec}"`, [peer], () => load(peer) as T);
  } catch (error) {
    if (MissingPeerError.isInstance(error)) throw new ModelConfigError(error.message);
    throw error;
  }
}

function setting(env: ModelEnvironment, key: string): string | undefined {
  const value = env[key]?.trim();
  return value ? value : undefined;
}

function fail(problem: string, needs: readonly string[] = []): never {
  throw new ModelConfigError(`${problem} Accepted model specs:\n  ${MODEL_SPEC_FORMS.join('\n  ')}`, needs);
}
