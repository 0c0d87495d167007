/**
 * The A2A agent card of a served Cairn agent: its skill from its instructions and tools, its
 * interfaces (A2A 1.0: JSON-RPC and HTTP+JSON at one URL; gRPC where a gRPC server serves it too),
 * and capabilities stated as they are — streaming yes (streaming send and subscribe follow the
 * run), push notifications yes (the run posts them: workflows/status-push.ts), no extended card. Node-only.
 */
import { A2A_PROTOCOL_VERSION, canonicalizeAgentCard, type AgentCard, type AgentSkill } from '@a2a-js/sdk';
import type { Agent } from '../../shared/agent/define-agent.js';
import type { CardSigner } from './card-signing.js';

/** What a server may say about an agent beyond what its definition holds. */
export interface A2AAgentDescription {
  /** One paragraph for other agents choosing whom to call. Default: the agent's instructions (first 500 characters). */
  readonly description?: string;
  /** Example requests. */
  readonly examples?: readonly string[];
  readonly version?: string;
  /**
   * The address (`host:port`) of a gRPC server serving this agent (`cairnA2AGrpcService`): the card
   * lists it as a GRPC interface whose tenant is the agent's name (the service serves them all).
   */
  readonly grpcUrl?: string;
  /** Card fields to set as given (provider, securitySchemes, securityRequirements, iconUrl…). */
  readonly card?: Partial<AgentCard>;
}

export function agentCard(agent: Agent, url: string, about: A2AAgentDescription = {}): AgentCard {
  const description = about.description ?? clip(agent.instructions, 500);
  const tools = agent.tools.map((t) => t.name);
  const skill: AgentSkill = {
    id: agent.name,
    name: agent.name,
    description:
      tools.length > 0
        ? `${description} Tools: ${agent.tools.map((t) => `${t.name} (${clip(t.description, 120)})`).join('; ')}.`
        : description,
    tags: ['cairn', ...tools],
    examples: [...(about.examples ?? [])],
    inputModes: ['text/plain', 'application/json'],
    outputModes: ['text/plain', 'application/json'],
    securityRequirements: [],
  };
  return {
    name: agent.name,
    description,
    // One URL, two bindings: JSON-RPC posts to it; HTTP+JSON adds its paths (message:send, tasks/{id}…).
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      { url, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      ...(about.grpcUrl
        ? [{ url: about.grpcUrl, protocolBinding: 'GRPC', tenant: agent.name, protocolVersion: A2A_PROTOCOL_VERSION }]
        : []),
    ],
    provider: undefined,
    version: about.version ?? '1.0.0',
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [skill],
    signatures: [],
    ...about.card,
  };
}

/**
 * `card` with the signer's signature added (after any it had): a JWS over the SDK's canonical form
 * of the card, so the SDK's `verifyAgentCardSignature` and Cairn's `a2aAgent` both check it.
 */
export function signedCard(card: AgentCard, signer: CardSigner): AgentCard {
  return {
    ...card,
    signatures: [...(card.signatures ?? []), { ...signer.sign(canonicalizeAgentCard(card)), header: undefined }],
  };
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
