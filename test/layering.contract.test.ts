/**
 * The sandbox and dependency direction, enforced: workflows → workflows/contract → planner → shared;
 * activities → shared; servers → client; client, servers, cli and entry → workflows/contract, never the rest of workflows/
 * (import cycles: import-cycles.contract.test.ts).
 * Workflow-side folders import no Node built-ins, no worker/client/activity SDK packages, no
 * activities and no provider SDKs. The planner imports nothing from Temporal at all. Production
 * code never imports testing/ or examples/ (only the demo command does); examples/ and starter/
 * use Cairn the way a user does: through the package's public entry points.
 */
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { importsOf, sources } from './support/source-imports.js';

const NODE_BUILTIN = /^(node:|fs|path|os|child_process|crypto|http|https|net|stream|worker_threads|process)(\/|$)/;
const WORKER_SIDE = /^@temporalio\/(activity|worker|client|testing|envconfig)|^(ai|@ai-sdk\/)/;
/** Production folders never reach into tests' and demos' code, nor into the package's entry files. */
const NOT_PRODUCTION = /(^|\/)(testing|examples|entry)\//;
/** The package seen from outside: only its entry points, never a path inside it. */
const DEEP_IMPORT = /^cairn-agents\/(?!(workflow|worker|client|http|a2a|mcp|testing)$)/;
const OUTSIDE_PROJECT = /^\.\.\//;
/** Any file of workflows/ but the run's contract (workflows/contract/), seen from a top-level folder. */
const WORKFLOW_INTERNALS = /\.\.\/workflows\/(?!contract\/)/;

interface Rule {
  readonly folder: string;
  readonly forbidden: readonly RegExp[];
  /** Files of the folder the rule leaves out, with why. */
  readonly except?: readonly string[];
  readonly tests?: boolean;
}

const RULES: readonly Rule[] = [
  {
    folder: 'shared',
    forbidden: [
      NODE_BUILTIN,
      WORKER_SIDE,
      /^@temporalio\//,
      /\.\.\/(planner|workflows|activities|runtime|cli|client|servers)\//,
      NOT_PRODUCTION,
    ],
  },
  {
    folder: 'planner',
    forbidden: [
      NODE_BUILTIN,
      WORKER_SIDE,
      /^@temporalio\//,
      /\.\.\/(workflows|activities|runtime|cli|client|servers)\//,
      NOT_PRODUCTION,
    ],
  },
  // The run's contract, a leaf of workflows/: Temporal's define functions, shared/ and planner/ types;
  // nothing else of workflows/, so never the workflow that implements it.
  {
    folder: 'workflows/contract',
    forbidden: [
      NODE_BUILTIN,
      WORKER_SIDE,
      /^@temporalio\/(?!(workflow|common)$)/,
      /^\.\.\/(?!\.\.\/)/,
      /\.\.\/(workflows|activities|runtime|cli|client|servers)\//,
      NOT_PRODUCTION,
    ],
  },
  {
    folder: 'workflows',
    forbidden: [NODE_BUILTIN, WORKER_SIDE, /\.\.\/(activities|runtime|cli|client|servers)\//, NOT_PRODUCTION],
  },
  { folder: 'activities', forbidden: [/\.\.\/(workflows|planner|runtime|cli|client|servers)\//, NOT_PRODUCTION] },
  { folder: 'runtime', forbidden: [/\.\.\/(cli|client|servers)\//, NOT_PRODUCTION] },
  // Clients and servers speak to runs through the contract (workflows/contract/), never the workflow's
  // own files; the servers use the typed client, and the typed client knows no server (nor HTTP, A2A, MCP).
  {
    folder: 'client',
    forbidden: [
      /^@temporalio\/(activity|worker|testing)|^@ai-sdk\//,
      WORKFLOW_INTERNALS,
      /\.\.\/(activities|runtime|cli|servers)\//,
      /^(ai|@ag-ui\/|@a2a-js\/|@modelcontextprotocol\/)/,
      NOT_PRODUCTION,
    ],
  },
  {
    folder: 'servers',
    forbidden: [
      /^@temporalio\/(activity|worker|testing)|^@ai-sdk\//,
      WORKFLOW_INTERNALS,
      /\.\.\/(activities|runtime|cli)\//,
      NOT_PRODUCTION,
    ],
  },
  { folder: 'cli', forbidden: [WORKFLOW_INTERNALS] },
  // The workflow entry point exports the workflow itself; the other entry points only its contract.
  { folder: 'entry', forbidden: [WORKFLOW_INTERNALS], except: ['entry/workflow.ts'] },
  // The HTTP handler writes the AI SDK's UI message stream with `ai`'s own writers; no other server loads `ai`.
  {
    folder: 'servers',
    forbidden: [/^ai(\/|$)/],
    except: ['servers/http/chat-endpoint.ts', 'servers/http/ui-message-chunks.ts'],
  },
  // A2A is an optional peer: only the A2A server (servers/a2a/) and the a2aAgent tool's activity load it.
  {
    folder: 'servers',
    forbidden: [/^@a2a-js\//],
    except: [
      'servers/a2a/a2a-task.ts',
      'servers/a2a/a2a-request-handler.ts',
      'servers/a2a/agent-card.ts',
      'servers/a2a/cairn-a2a-handler.ts',
      'servers/a2a/grpc-binding.ts',
      'servers/a2a/rest-binding.ts',
      'servers/a2a/task-history.ts',
    ],
  },
  { folder: 'shared', forbidden: [/^@a2a-js\//] },
  { folder: 'activities', forbidden: [/^@a2a-js\//], except: ['activities/a2a-activity.ts'] },
  // The demo command runs the examples' agent with its scripted model; no other command may.
  { folder: 'cli', forbidden: [NOT_PRODUCTION], except: ['cli/demo.ts'] },
  { folder: 'testing', forbidden: [/\.\.\/(cli|examples|entry)\//] },
  // The workflow-safe entry points: what a workflow bundle imports.
  {
    folder: 'entry',
    forbidden: [NODE_BUILTIN, WORKER_SIDE, /\.\.\/(activities|runtime|cli|client|servers|testing|examples)\//],
    except: ['entry/worker.ts', 'entry/client.ts', 'entry/http.ts', 'entry/a2a.ts', 'entry/mcp.ts', 'entry/testing.ts'],
  },
  {
    folder: 'entry',
    forbidden: [/\.\.\/(cli|examples)\//, /\.\.\/testing\//],
    except: ['entry/index.ts', 'entry/workflow.ts', 'entry/testing.ts'],
  },
  { folder: 'examples', forbidden: [OUTSIDE_PROJECT, DEEP_IMPORT], tests: true },
  { folder: 'starter', forbidden: [OUTSIDE_PROJECT, DEEP_IMPORT], tests: true },
];

/** Agents and tools: the workflow bundle imports them, so they must be workflow-safe too. */
const WORKFLOW_SAFE_FILES = ['examples/orders/agent.ts', 'examples/orders/tools.ts', 'starter/src/agents.ts'];

describe('layering contract', () => {
  for (const { folder, forbidden, except = [], tests } of RULES) {
    it(`${folder}/ imports only what its side may${except.length ? ` (but ${except.join(', ')})` : ''}`, async () => {
      const files = (await sources(folder, { tests })).filter((file) => !except.includes(relative(PACKAGE_ROOT, file)));
      expect(files.length).toBeGreaterThan(0);
      const violations: string[] = [];
      for (const file of files)
        for (const spec of await importsOf(file))
          if (forbidden.some((re) => re.test(spec))) violations.push(`${relative(PACKAGE_ROOT, file)} imports ${spec}`);
      expect(violations).toEqual([]);
    });
  }

  it('agents and tools of examples/ and starter/ are workflow-safe', async () => {
    const violations: string[] = [];
    for (const file of WORKFLOW_SAFE_FILES)
      for (const spec of await importsOf(join(PACKAGE_ROOT, file)))
        if ([NODE_BUILTIN, WORKER_SIDE, /^cairn-agents\/(worker|client|testing)$/].some((re) => re.test(spec)))
          violations.push(`${file} imports ${spec}`);
    expect(violations).toEqual([]);
  });

  it('the rules catch what they are for', () => {
    expect(WORKFLOW_INTERNALS.test('../workflows/agent-run.js')).toBe(true);
    expect(WORKFLOW_INTERNALS.test('../../workflows/run-events.js')).toBe(true);
    expect(WORKFLOW_INTERNALS.test('../workflows/contract/index.js')).toBe(false);
    expect(WORKFLOW_INTERNALS.test('../../workflows/contract/run-state.js')).toBe(false);
    expect(NOT_PRODUCTION.test('../testing/scripted-model.js')).toBe(true);
    expect(NOT_PRODUCTION.test('../../examples/orders/agent.js')).toBe(true);
    expect(DEEP_IMPORT.test('cairn-agents/dist/shared/tools/define-tool.js')).toBe(true);
    expect(DEEP_IMPORT.test('cairn-agents/testing')).toBe(false);
    expect(DEEP_IMPORT.test('cairn-agents')).toBe(false);
  });
});
