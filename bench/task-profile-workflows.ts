/**
 * The Cairn bundle's entry of bench/workflow-task-profile.ts: the real agentRun over the profile
 * agent. The plain loop is bundled apart (bench/plain-person-loop.ts), or beside it with
 * `--shared-bundle` (bench/task-profile-shared-workflows.ts).
 */
import { defineAgentRun } from '../workflows/agent-run.js';
import { profileAgent } from './task-profile-agent.js';

export const agentRun = defineAgentRun([profileAgent]);
