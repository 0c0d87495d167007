/**
 * The Temporal UI tells a run's story (issue 12): a person scanning the run's page sees which tool
 * calls failed and why, and what the planner did, without opening an event. A tool activity
 * completes even when its ToolResult is an error (a value, never a failed activity), so the next
 * command says it: the model turn's summary (`model turn 5 — after track_shipment ✗ missing_fields
 * → repair`), the back-off timer's, a re-run's, a reviewed call's; current details list the last
 * error whole and the latest decisions, in a frame the UI sizes too short by ~14 px.
 *
 * The end-to-end part runs `cairn demo --yes` against a dev server of its own WITH the UI (the
 * shared one has none), then reads the run's pages in headless Chromium (test/support/chromium.ts)
 * and saves screenshots in a temp folder, printed for a person to look at.
 */
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Browser, Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersAgent } from '../examples/orders/agent.ts';
import { demoScripts } from '../examples/orders/demo-script.ts';
import { initialState, resolvePolicy, type ErrorSummary, type PlannerState } from '../planner/index.js';
import { writeAgentsEntry } from '../runtime/agents-entry.js';
import { startEmbeddedServer } from '../runtime/embedded-server.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { createCairnWorker } from '../runtime/worker.js';
import { bundleWorkflows } from '../runtime/workflow-bundle.js';
import type { RunState } from '../workflows/contract/index.js';
import {
  MAX_ERROR_CHARS,
  MAX_SUMMARY_CHARS,
  modelTurnSummary,
  runDetails,
  summaryLine,
  toolCallNote,
} from '../workflows/run-details.js';
import { callSummary } from '../workflows/tool-dispatch.js';
import { launchChromium } from './support/chromium.js';

const TOOLS = ['search_orders', 'track_shipment', 'carrier_status'];

function plannerState(overrides: Partial<PlannerState> = {}): PlannerState {
  return { ...initialState({ policy: resolvePolicy(), tools: TOOLS, now: 0 }), ...overrides };
}

function error(toolCallId: string, tool: string, code: ErrorSummary['code'], message = `${tool} failed`): ErrorSummary {
  return { toolCallId, tool, code, message };
}

function runState(overrides: Partial<RunState> = {}): RunState {
  return {
    agent: 'orders',
    phase: 'model',
    paused: false,
    turn: 3,
    toolCalls: 4,
    failedBatchStreak: 0,
    clarification: null,
    reviews: [],
    children: [],
    disabledTools: [],
    lastErrors: [],
    finalizing: null,
    answer: null,
    transcriptLength: 9,
    generation: 0,
    continuingAsNew: false,
    steps: [],
    ...overrides,
  };
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

describe('timeline summaries', () => {
  it("a model turn's summary names the failed calls of the batch it reacts to and the planner's decisions", () => {
    const state = plannerState({
      turn: 4,
      lastErrors: [
        error('3.1', 'search_orders', 'semantic_error'),
        error('4.1', 'track_shipment', 'missing_fields'),
        error('4.2', 'carrier_status', 'tool_unavailable'),
      ],
      disabled: { carrier_status: { reason: '503', untilTurn: null } },
    });
    expect(modelTurnSummary(state, { tool: 'track_shipment' })).toBe(
      'model turn 5 — after track_shipment ✗ missing_fields → repair, carrier_status ✗ tool_unavailable → disabled',
    );
    // Nothing failed in the last batch: the turn alone, as before.
    expect(
      modelTurnSummary(
        plannerState({ turn: 2, lastErrors: [error('1.1', 'search_orders', 'invalid_arguments')] }),
        'auto',
      ),
    ).toBe('model turn 3');
  });

  it('a forced final turn says why and still ends with "(final)", however long the reason', () => {
    const state = plannerState({
      turn: 6,
      finalizing: `search_orders keeps failing with invalid_arguments ${'x'.repeat(400)}`,
      lastErrors: [error('6.1', 'search_orders', 'invalid_arguments')],
    });
    const summary = modelTurnSummary(state, 'none');
    expect(summary).toMatch(
      /^model turn 7 — after search_orders ✗ invalid_arguments · search_orders keeps failing with invalid_arguments x+… \(final\)$/,
    );
    expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
  });

  it('tool calls say when they run again after a back-off and when a reviewer decided them', () => {
    const call = { toolCallId: '5.1', name: 'track_shipment', args: { orderId: 'A-1002' } };
    const rateLimited = {
      status: 'error',
      name: 'track_shipment',
      toolCallId: '5.1',
      error: { code: 'rate_limited', message: '429' },
    } as never;
    const state = plannerState({ batch: { entries: [], results: { '5.1': rateLimited } } });
    expect(callSummary(call, toolCallNote(call, state))).toBe(
      'track_shipment orderId=A-1002 — again after rate_limited',
    );
    expect(callSummary(call, toolCallNote(call, plannerState(), { type: 'accept' }))).toBe(
      'track_shipment orderId=A-1002 — accepted by a reviewer',
    );
    expect(callSummary(call, toolCallNote(call, plannerState()))).toBe('track_shipment orderId=A-1002');
  });

  it("stays within the server's 400-byte summary limit, on one line, never cutting a character in half", () => {
    const wide = summaryLine(`model turn 1 — after ${'検索 ✗ 😀 '.repeat(80)}`);
    expect(utf8(wide)).toBeLessThanOrEqual(300);
    expect(wide).toMatch(/…$/);
    expect(wide).not.toMatch(/[\uD800-\uDBFF]…$/); // no lone surrogate before the ellipsis
    expect(summaryLine('a\nb\t c')).toBe('a b c');
    const call = { toolCallId: '1.1', name: 'note', args: { text: 'x'.repeat(300), more: 'y'.repeat(300) } };
    expect(callSummary(call, 'accepted by a reviewer')).toMatch(/^note text=x+ more=y+.*— accepted by a reviewer$/);
    expect(callSummary(call, 'accepted by a reviewer').length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
  });
});

describe('current details', () => {
  it('one short line per fact, the last error whole, the latest decisions, and a spacer line the UI may cut', () => {
    const message = `1. <b>not</b> *markdown* \`x\` -- ${'m'.repeat(300)}\nsecond line`;
    const details = runDetails(
      runState({
        lastErrors: [error('2.1', 'search_orders', 'invalid_arguments', message)],
        disabledTools: ['carrier_status'],
        steps: [
          { seq: 1, turn: 0, at: 2, action: 'model', detail: 'model turn with 3 tool(s)' },
          { seq: 2, turn: 1, at: 4, action: 'repair', detail: 'model repairs the call, restricted to search_orders' },
          {
            seq: 3,
            turn: 2,
            at: 6,
            action: 'back_off',
            detail: 'back-off for track_shipment: rate limited; retry in 1000 ms without a model turn',
          },
        ],
      }),
    );
    const lines = details.split('\\\n');
    expect(lines).toEqual([
      '**orders** · phase `model` · turn 3 · 4 tool calls',
      '**Last error** 2.1 search\\_orders ✗ `invalid_arguments`:',
      // Whole (it is under MAX_ERROR_CHARS), on one line, markdown and HTML escaped.
      `1\\. \\<b\\>not\\</b\\> \\*markdown\\* \\\`x\\\` -- ${'m'.repeat(300)} second line`,
      '**Disabled:** carrier\\_status',
      '**Decisions:**',
      'after turn 1 · repair: model repairs the call, restricted to search\\_orders',
      'after turn 2 · back off: back-off for track\\_shipment: rate limited; retry in 100…',
      '\u00a0',
    ]);
    const long = runDetails(runState({ lastErrors: [error('2.1', 't', 'internal_error', 'e'.repeat(1000))] }));
    expect(long).toContain(`${'e'.repeat(MAX_ERROR_CHARS - 1)}…`);
  });

  it('puts what a person must act on first: the question, or the review with the argsHash to send', () => {
    const details = runDetails(
      runState({
        phase: 'awaiting_review',
        reviews: [
          {
            toolCallId: '7.2',
            name: 'issue_refund',
            args: { orderId: 'A-1002', note: 'it`s "late"' },
            argsHash: '9f2c',
            description: 'Check the amount.',
          },
        ],
      }),
    );
    expect(details.split('\\\n').slice(1, 4)).toEqual([
      '**Review 7.2:** issue\\_refund ``{"orderId":"A-1002","note":"it`s \\"late\\""}``',
      'argsHash `9f2c` · allowed: accept, edit, respond, reject',
      '_Check the amount._',
    ]);
    expect(
      runDetails(runState({ phase: 'awaiting_clarification', clarification: { id: 'q1', question: 'Which window?' } })),
    ).toContain('**Question q1:** Which window?');
  });
});

/** Free TCP ports on 127.0.0.1, for the second dev server and its UI. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve) => {
          const server = createServer();
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

const TSX = join(PACKAGE_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** `cairn demo --yes` against `address`, as `npm run demo` runs it; its stdout. */
function runDemo(address: string, uiUrl: string): Promise<string> {
  // Only this server: no other Temporal settings, and no encryption (the UI would show ciphertext).
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('TEMPORAL_') && key !== 'CAIRN_CODEC_KEYS'),
  );
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [TSX, 'cli/main.ts', 'demo', '--yes'],
      { cwd: PACKAGE_ROOT, env: { ...env, TEMPORAL_ADDRESS: address, TEMPORAL_UI_URL: uiUrl }, timeout: 180_000 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`cairn demo failed: ${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

/** Run in the page (as source: this project's TypeScript has no DOM types). */
const IN_BROWSER = {
  text: `document.body ? document.body.innerText : ''`,
  /** The current details frame has its content. */
  detailsShown: `[...document.querySelectorAll('iframe')].some((f) => f.contentDocument?.body?.innerText.includes('Last error'))`,
  /** Where the frame's last line of text ends, and how tall the UI made the frame. */
  textBottom: `(() => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let bottom = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.replace(/\u00a0/g, '').trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      bottom = Math.max(bottom, range.getBoundingClientRect().bottom);
    }
    return { bottom, height: window.innerHeight };
  })()`,
};

/** Polls `check` until true (the UI's pages run no string code: waitForFunction would need eval). */
async function until(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Text of a page's frames (the UI renders markdown, e.g. current details, in iframes). */
async function frameTexts(frames: readonly Frame[]): Promise<string[]> {
  return Promise.all(frames.map((frame) => frame.evaluate<string>(IN_BROWSER.text).catch(() => '')));
}

describe('the demo run in the Temporal UI', () => {
  let server: Awaited<ReturnType<typeof startEmbeddedServer>>;
  let browser: Browser;
  let bundle: Promise<{ code: string }>;
  let uiUrl: string;
  let shots: string;

  beforeAll(async () => {
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') }); // the worker below: no INFO lines
    } catch {
      // already installed in this process
    }
    const [port, uiPort] = await freePorts(2);
    uiUrl = `http://127.0.0.1:${uiPort}`;
    // The demo's workflow code, bundled meanwhile for the worker that answers the UI's details query.
    bundle = writeAgentsEntry(join(PACKAGE_ROOT, 'examples/orders/agent.ts')).then(bundleWorkflows);
    bundle.catch(() => {}); // awaited in the test
    [server, browser, shots] = await Promise.all([
      startEmbeddedServer({ port, uiPort }),
      launchChromium(),
      mkdtemp(join(tmpdir(), 'cairn-ui-')),
    ]);
  }, 150_000); // a dev server with its UI and a browser, started on a loaded machine

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows failed tool calls with their codes and each planner decision, and current details that fit their frame', {
    // The demo's own bound is 180 s: on a busy machine its eight model turns take longer than a quiet 20 s.
    timeout: 240_000,
  }, async () => {
    const out = await runDemo(server.address, uiUrl);
    const workflowId = /Run (\S+) started/.exec(out)?.[1];
    expect(workflowId, out).toBeDefined();
    const { taskQueue, runId } = await server.client.workflow.getHandle(workflowId!).describe();

    const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
    // The History tab: the timeline, one row per activity, timer and message, with its summary.
    await page.goto(`${uiUrl}/namespaces/default/workflows/${workflowId}`);
    await page.getByText('reviewToolCall').first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(shots, 'history.png'), fullPage: true });
    const timeline = await page.evaluate<string>(IN_BROWSER.text);
    for (const row of [
      'callModel • model turn 2 — after search_orders ✗ invalid_arguments → repair',
      'callModel • model turn 3 — after search_orders ✗ semantic_error',
      'callModel • model turn 5 — after track_shipment ✗ missing_fields → repair',
      'back-off for track_shipment: rate limited, ',
      'runTool • track_shipment orderId=A-1002 — again after rate_limited',
      'callModel • model turn 7 — after schedule_redelivery ✗ invalid_arguments, carrier_status ✗ tool_unavailable → disabled',
      'answerClarification',
      'reviewToolCall',
      'runOnceTool • issue_refund orderId=A-1002 amount=12 reason=delivered 4 days late — accepted by a reviewer',
    ])
      expect(timeline, `${row}\n--- screenshots in ${shots}`).toContain(row);

    // The User Metadata tab: every summary whole, and the current details, answered by a worker on
    // the demo's task queue (the demo's own stopped with it).
    const worker = await createCairnWorker({
      connection: server.workerConnection,
      client: server.client,
      taskQueue,
      agents: [ordersAgent],
      models: { scripts: demoScripts() },
      workflowBundle: await bundle,
    });
    await worker.runUntil(async () => {
      await page.goto(`${uiUrl}/namespaces/default/workflows/${workflowId}/${runId}/user-metadata`);
      await until(() => page.evaluate<boolean>(IN_BROWSER.detailsShown), 'the current details', 30_000);
      await page.screenshot({ path: join(shots, 'user-metadata.png'), fullPage: true });
      const frames = page.frames();
      const texts = await frameTexts(frames);
      const all = texts.join('\n');
      for (const summary of [
        'model turn 4 — after search_orders ✗ partial_data, order_feed ✗ output_not_json, order_feed ✗ output_schema_violation',
        'model turn 2 — after search_orders ✗ invalid_arguments → repair',
        'back-off for track_shipment: rate limited',
      ])
        expect(all, `${summary}\n--- screenshots in ${shots}`).toContain(summary);
      const at = texts.findIndex((t) => t.includes('Last error'));
      const current = texts[at]!;
      // The agent with its version (a digest of its definition).
      expect(current).toMatch(/orders version [0-9a-f]{16} · phase done · turn 8 · 10 tool calls/);
      expect(current).toContain(
        'Last error 6.2 carrier_status ✗ tool_unavailable:\ncarrier status API answered 503 Service Unavailable',
      );
      expect(current).toContain('Disabled: carrier_status');
      expect(current).toMatch(
        /after turn 4 · repair: model repairs the call, restricted to track_shipment\n.*back off: back-off for track_shipment: rate limited/,
      );
      expect(current).toMatch(/after turn 6 · clarify: Which delivery window suits you/);
      expect(current).toMatch(/after turn 7 · review: issue_refund/);
      // Every line shows whole: the frame the UI sized is tall enough for the last line of text.
      const fit = await frames[at]!.evaluate<{ bottom: number; height: number }>(IN_BROWSER.textBottom);
      expect(fit.bottom, `screenshots in ${shots}`).toBeLessThanOrEqual(fit.height);
    });
    console.log(`Temporal UI screenshots of ${workflowId}: ${shots}`);
  });
});
