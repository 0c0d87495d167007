/** Everything `cairn-agents/a2a` exports, loaded by the entry point once `@a2a-js/sdk` is known to be there. Node-only. */
export { createCairnA2AHandler, type CairnA2AHandler, type CairnA2AHandlerOptions } from './cairn-a2a-handler.js';
export { cairnA2AGrpcService, type CairnA2AGrpcOptions, type CairnA2AGrpcService } from './grpc-binding.js';
export { CairnA2ARequestHandler, type A2AHandlerSettings } from './a2a-request-handler.js';
export { agentCard, type A2AAgentDescription } from './agent-card.js';
export { cardSigningFromEnv, type A2ACardSigning } from './card-signing.js';
export { toTask, CONTEXT_MEMO_KEY, INPUT_REQUIRED_MEDIA_TYPE, ANSWER_ARTIFACT_ID } from './a2a-task.js';
