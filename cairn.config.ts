/**
 * This repository's Cairn project: the demo's order-support agent, with the demo's scripted model
 * registered, so `npm run cairn -- dev` and `cairn worker` (and the Docker image) serve it.
 */
import { defineConfig } from 'cairn-agents/worker';
import { demoScripts } from './examples/orders/demo-script.ts';

export default defineConfig({
  agents: './examples/orders/agent.ts',
  models: { scripts: demoScripts() },
});
