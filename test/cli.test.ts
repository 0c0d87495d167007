/**
 * The `cairn` CLI as a subprocess against the real dev server: a test worker with scripted models
 * on a private task queue, the CLI pointed at it with TEMPORAL_ADDRESS and --task-queue. Checks
 * exit codes, text output and --json documents; every failure is one line on stderr.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptStep, type ScriptContext } from '../testing/script-steps.js';
import { cairn as cairnInProcess, COMMANDS } from '../cli/cairn.js';
import { tuningFlags } from '../cli/worker-flags.js';
import { DEMO_PROMPT } from '../examples/orders/demo-script.ts';
import { Client, Connection } from '@temporalio/client';
import { fastDevServerCommand, fastDevServerHint } from '../runtime/embedded-server.js';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { runUrl } from '../runtime/temporal-target.js';
import { CairnAgent } from '../workflows/contract/search-attributes.js';
import { calls } from './fixtures/tools.js';
import { serverAddress, startTestWorker, type TestWorker } from './support/temporal.js';

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const TSX = join(PACKAGE_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** Runs `cairn ...args` on this Node (24), against the test server unless `env` says otherwise. */
function cairn(
  args: readonly string[],
  env: Record<string, string> = {},
  timeout = 50_000,
  cwd = PACKAGE_ROOT,
): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSX, join(PACKAGE_ROOT, 'cli', 'main.ts'), ...args],
      {
        cwd,
        env: {
          ...cleanEnvironment(),
          TSX_TSCONFIG_PATH: join(PACKAGE_ROOT, 'tsconfig.json'),
          TEMPORAL_ADDRESS: serverAddress(),
          ...env,
        },
        timeout,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** This process's environment without any other Temporal connection settings (TEMPORAL_CLI_PATH stays: which CLI `cairn dev` starts). */
function cleanEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('TEMPORAL_') || key === 'TEMPORAL_CLI_PATH'),
  );
}

/** A failure: the exit code, nothing on stdout, one line on stderr (returned). */
function expectOneLineFailure(outcome: Outcome, code: number): string {
  expect(outcome.code, outcome.stderr).toBe(code);
  expect(outcome.stdout).toBe('');
  const lines = outcome.stderr.trimEnd().split('\n');
  expect(lines, outcome.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^cairn( \w+)?: /);
  return lines[0]!;
}

function expectSuccess(outcome: Outcome): string {
  expect(outcome.code, outcome.stderr).toBe(0);
  return outcome.stdout;
}

function json<T = Record<string, unknown>>(outcome: Outcome): T {
  expect(outcome.code, outcome.stderr).toBe(0);
  return JSON.parse(outcome.stdout) as T;
}

/** A run that waits on a person: exit 3 (docs/cli.md, "Exit codes"), stdout returned. */
function expectWaiting(outcome: Outcome): string {
  expect(outcome.code, outcome.stderr).toBe(3);
  return outcome.stdout;
}

/** `cairn watch --json`: one event a line; the watch ended at the answer (0) or at a person (3). */
function eventLines(outcome: Outcome): Record<string, any>[] {
  expect([0, 3], outcome.stderr).toContain(outcome.code);
  return outcome.stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
}

const newId = () => `cli-${randomUUID().slice(0, 8)}`;

interface LongRunning {
  readonly pid: number | undefined;
  /** The ready document: the first line on stdout that is JSON. */
  readonly ready: Promise<Record<string, unknown>>;
  /** Everything written on stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, as a process manager stops it; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** Resolves with the exit code once the process has exited on its own. */
  readonly exited: Promise<number | null>;
}

const READY_TIMEOUT_MS = 200_000;

/**
 * `cairn dev` / `cairn worker` as a subprocess, from the sources; tsx is loaded into the one Node
 * process (`--import tsx`), so signals reach the CLI. `ready` is the first JSON line on stdout, or
 * the first line matching `readyLine`.
 */
function startLongRunning(
  args: readonly string[],
  env: Record<string, string> = {},
  readyLine?: RegExp,
  user?: { uid: number; gid: number },
  cwd = PACKAGE_ROOT,
): LongRunning {
  const tsx = pathToFileURL(join(PACKAGE_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  const child = spawn(process.execPath, ['--import', tsx, join(PACKAGE_ROOT, 'cli', 'main.ts'), ...args], {
    cwd,
    env: { ...cleanEnvironment(), TSX_TSCONFIG_PATH: join(PACKAGE_ROOT, 'tsconfig.json'), ...env },
    ...user,
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const line of stdout.split('\n').slice(0, -1)) {
        if (readyLine?.test(line)) resolve({ line });
        else if (!readyLine && line.startsWith('{')) resolve(JSON.parse(line) as Record<string, unknown>);
      }
    });
    void exited.then((code) => reject(new Error(`cairn ${args[0]} exited (${code}) before it was ready: ${stderr}`)));
    setTimeout(
      () => reject(new Error(`cairn ${args[0]} was not ready within ${READY_TIMEOUT_MS / 1000} s: ${stderr}`)),
      READY_TIMEOUT_MS,
    ).unref();
  });
  return {
    pid: child.pid,
    ready,
    stdout: () => stdout,
    stderr: () => stderr,
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
    exited,
  };
}

/** Ports nobody listens on right now. */
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
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** The text of the notes Cairn adds to the transcript (answers, budgets…). */
const notes = (ctx: ScriptContext) =>
  ctx.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');

// Most of these spawn a `cairn` process (tsx and the CLI's modules): seconds apiece on a loaded 2-core machine.
describe('cairn help and usage errors', { timeout: 120_000 }, () => {
  it('links a run to the Temporal UI, when there is one', () => {
    const target = { address: 'localhost:7233', namespace: 'my ns', uiUrl: 'http://localhost:8233/' };
    expect(runUrl(target, 'a b', 'r')).toBe('http://localhost:8233/namespaces/my%20ns/workflows/a%20b/r/history');
    expect(runUrl(target, 'x')).toBe('http://localhost:8233/namespaces/my%20ns/workflows/x');
    expect(runUrl({ ...target, uiUrl: undefined }, 'x')).toBeUndefined();
  });

  it('docs/operations.md gives the same fast dev server command `cairn dev` prints for a local server of your own', () => {
    expect(fastDevServerHint()).toContain(fastDevServerCommand());
    expect(readFileSync(join(PACKAGE_ROOT, 'docs', 'operations.md'), 'utf8')).toContain(
      `\n${fastDevServerCommand()}\n`,
    );
  });

  it('init --from a checkout writes a file: dependency npm packs like a release (install-links); a wrong --from is one line, exit 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-init-'));
    try {
      const init = json<{ cairnAgents: string; files: string[] }>(
        await cairn(['init', join(dir, 'app'), '--from', PACKAGE_ROOT, '--json']),
      );
      expect(init.cairnAgents).toBe(`file:${relative(join(dir, 'app'), PACKAGE_ROOT)}`);
      expect(init.files).toContain('.npmrc');
      expect(JSON.parse(readFileSync(join(dir, 'app', 'package.json'), 'utf8')).dependencies['cairn-agents']).toBe(
        init.cairnAgents,
      );
      expect(readFileSync(join(dir, 'app', '.npmrc'), 'utf8')).toBe('engine-strict=true\ninstall-links=true\n');
      const wrong = await cairn(['init', join(dir, 'other'), '--from', join(dir, 'nothing.tgz')]);
      expect(expectOneLineFailure(wrong, 1)).toBe(
        `cairn init: --from ${join(dir, 'nothing.tgz')}: not a cairn-agents tarball (.tgz, from npm pack) or a folder holding cairn-agents' package.json.`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('turns the worker tuning flags of dev and worker into Temporal Worker options', () => {
    const flags = {
      config: 'cairn.config.ts',
      'max-cached-workflows': '500',
      'max-concurrent-workflow-tasks': '20',
      'max-concurrent-activities': '50',
      'workflow-task-pollers': '4',
      'activity-task-pollers': 'auto',
    };
    expect(tuningFlags(flags)).toEqual({
      maxCachedWorkflows: 500,
      maxConcurrentWorkflowTaskExecutions: 20,
      maxConcurrentActivityTaskExecutions: 50,
      workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 4 },
      activityTaskPollerBehavior: { type: 'autoscaling' },
    });
    expect(tuningFlags({ config: 'cairn.config.ts' })).toEqual({});
    expect(() => tuningFlags({ 'max-concurrent-activities': '1.5' })).toThrow(
      '--max-concurrent-activities must be a whole number above 0, not "1.5"',
    );
  });

  it('on an older Node with no Node 24 installed beside it, bin/cairn.js says "Use Node 24" in one line, before loading anything', async () => {
    // An unpacked tarball, not installed: no node_modules/.bin/node to run it instead.
    const unpacked = await mkdtemp(join(tmpdir(), 'cairn-unpacked-'));
    await mkdir(join(unpacked, 'bin'));
    await copyFile(join(PACKAGE_ROOT, 'bin', 'cairn.js'), join(unpacked, 'bin', 'cairn.js'));
    const older = await new Promise<Outcome>((resolve) =>
      execFile(
        process.execPath,
        [
          '--import',
          'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.11.1"})',
          join(unpacked, 'bin', 'cairn.js'),
          'dev',
        ],
        { cwd: unpacked, timeout: 30_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      ),
    );
    expect(expectOneLineFailure(older, 1)).toBe(
      'cairn: Use Node 24 (this is Node 20.11.1); Cairn and its projects run TypeScript directly, which Node 24 does. `npm ci` in a checkout installs it (node_modules/.bin/node).',
    );
    await rm(unpacked, { recursive: true, force: true });
  });

  it('prints the command list with --help, and on stderr with exit 2 when no command is given', async () => {
    const [help, none, helpTopic] = await Promise.all([cairn(['--help']), cairn([]), cairn(['help', 'answer'])]);
    const text = expectSuccess(help);
    for (const command of COMMANDS) expect(text).toContain(`  ${command.name} `);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('Usage: cairn <command>');
    expect(expectSuccess(helpTopic)).toMatch(/^Usage: cairn answer /);
  });

  // The README's `node cairn/bin/cairn.js init …` runs on the system Node, which may be older than 24.
  const olderNode = ['/usr/bin/node', '/usr/local/bin/node'].find((node) => {
    try {
      return Number(execFileSync(node, ['-p', 'process.versions.node.split(".")[0]']).toString()) < 24;
    } catch {
      return false;
    }
  });
  it.skipIf(!olderNode)("bin/cairn.js started on an older Node runs on the checkout's Node 24", async () => {
    const outcome = await new Promise<Outcome>((resolve) =>
      execFile(olderNode!, [join(PACKAGE_ROOT, 'bin', 'cairn.js'), 'init', '--help'], (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      ),
    );
    expect(expectSuccess(outcome)).toMatch(/^Usage: cairn init /);
    expect(outcome.stderr).toBe('');
  });

  it('npm run bench:cluster -- --help prints its options; an unknown flag is one line', async () => {
    const bench = (flag: string) =>
      new Promise<Outcome>((resolve) =>
        execFile(
          process.execPath,
          [TSX, join(PACKAGE_ROOT, 'bench', 'cluster.ts'), flag],
          { cwd: PACKAGE_ROOT },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
        ),
      );
    const [help, bogus] = await Promise.all([bench('--help'), bench('--bogus')]);
    expect(expectSuccess(help)).toMatch(/^Usage: npm run bench:cluster -- \[options\]$/m);
    expect(help.stdout).toContain('--deadline-minutes <n>');
    expect(bogus).toEqual({
      code: 2,
      stdout: '',
      stderr: "bench/cluster.ts: Unknown option '--bogus' (--help lists the options)\n",
    });
  });

  it('prints every command’s --help (and -h) with exit 0', async () => {
    // In this process, through the function bin/cairn.js runs: one process per command (17 at once)
    // outlasted the test's minute on a loaded 2-core machine. Processes only where the path differs:
    // demo parses its own --help, and one -h shows the exit code and streams of a real process.
    const names = COMMANDS.filter((c) => !c.delegates).map((c) => c.name);
    for (const name of names) {
      let stdout = '';
      let stderr = '';
      const streams = {
        stdout: { write: (s: string) => (stdout += s) },
        stderr: { write: (s: string) => (stderr += s) },
      };
      expect(await cairnInProcess([name, '--help'], streams), name).toBe(0);
      expect(stdout).toMatch(new RegExp(`^Usage: cairn ${name}\\b`));
      expect(stderr).toBe('');
    }
    expect(COMMANDS.filter((c) => c.delegates).map((c) => c.name)).toEqual(['demo']);
    const demo = await cairn(['demo', '--help']);
    expect(expectSuccess(demo)).toMatch(/^Usage: cairn demo\b/);
    expect(demo.stderr).toBe('');
    // --help wins over missing arguments.
    const review = await cairn(['review', '-h']);
    expect(expectSuccess(review)).toContain('reject [reason]');
    expect(review.stderr).toBe('');
  });

  it.each([
    [['bogus'], /^cairn: unknown command "bogus"/],
    [['run', 'test'], /^cairn run: missing <prompt>/],
    [['run', 'test', 'hi', '--bogus'], /^cairn run: Unknown option '--bogus' \(see cairn run --help\)$/],
    [['run', 'test', 'hi', '--model'], /^cairn run: Option '--model <value>' argument missing/],
    [['run', 'test', '   '], /^cairn run: the prompt is empty/],
    [['answer', 'wf'], /^cairn answer: missing <text>/],
    [['answer', 'wf', 'a', 'b'], /^cairn answer: unexpected argument "b"/],
    [['answer', 'wf', '{"window":'], /^cairn answer: answer: not valid JSON \(.+\): \{"window":$/],
    [['answer', 'wf', '{"window"}'], /^cairn answer: answer: not valid JSON/],
    [['review', 'wf', '1.1'], /^cairn review: missing <decision>/],
    [['review', 'wf', '1.1', 'maybe'], /^cairn review: unknown decision "maybe"/],
    [['review', 'wf', '1.1', 'edit'], /^cairn review: edit needs the new arguments as JSON/],
    [['review', 'wf', '1.1', 'edit', '{bad'], /^cairn review: edit arguments: not valid JSON/],
    [['review', 'wf', '1.1', 'respond', 'plain text'], /^cairn review: respond content: not valid JSON/],
    [['review', 'wf', '1.1', 'accept', 'extra'], /^cairn review: accept takes no argument/],
    [['watch'], /^cairn watch: missing <workflowId>/],
    [['watch', 'wf', '--from', 'soon'], /^cairn watch: --from must be an offset/],
    [['show', 'a', 'b'], /^cairn show: unexpected argument "b"/],
    [['dev', '--port', '99999'], /^cairn dev: --port must be a port number/],
    [['worker', 'extra'], /^cairn worker: unexpected argument "extra"/],
    [
      ['worker', '--max-cached-workflows', '0'],
      /^cairn worker: --max-cached-workflows must be a whole number above 0, not "0"$/,
    ],
    [
      ['dev', '--workflow-task-pollers', 'lots'],
      /^cairn dev: --workflow-task-pollers must be a whole number above 0 or "auto", not "lots"$/,
    ],
    [
      ['worker', '--versioning', 'PINNED'],
      /^cairn worker: --versioning must be "pinned", "auto-upgrade", "off", not "PINNED"$/,
    ],
    [['worker', '--deployment-name', 'v1.2'], /^cairn worker: --deployment-name must be a name without "\." /],
    [['deploy'], /^cairn deploy: missing <subcommand>/],
    [['deploy', 'promote'], /^cairn deploy: unknown subcommand "promote": status, set-current, ramp/],
    [['deploy', 'set-current'], /^cairn deploy: set-current needs the build: --build-id <id> \(or CAIRN_BUILD_ID\)$/],
    [['deploy', 'ramp', '--build-id', 'b'], /^cairn deploy: ramp needs --percentage above 0 and at most 100$/],
    [['deploy', 'ramp', '--build-id', 'b', '--percentage', '150'], /at most 100, not "150"$/],
    [['deploy', 'status', '--stop'], /^cairn deploy: --stop is ramp --stop, without --percentage$/],
  ])('cairn %j → exit 2 with one line', async (args, message) => {
    expect(expectOneLineFailure(await cairn(args), 2)).toMatch(message);
  });
});

// Each step spawns a `cairn` process (tsx, the client, a connection): seconds apiece on a loaded
// 2-core machine, so these flows get minutes, not the default minute.
describe('cairn against a real dev server', { timeout: 180_000 }, () => {
  let w: TestWorker;
  beforeAll(async () => void (w = await startTestWorker()));
  afterAll(() => w?.stop());

  /** `cairn run test <prompt> --model <script> --task-queue <queue> ...more`. */
  const run = (model: string, more: readonly string[] = [], prompt = 'Where is order A-1?') =>
    cairn(['run', 'test', prompt, '--model', model, '--task-queue', w.taskQueue, ...more]);

  it('run --wait prints the workflow id, the UI link and the answer', async () => {
    const { model } = w.script([
      scriptStep.call('lookup_order', { orderId: 'A-1' }),
      scriptStep.text('Order A-1 has shipped.'),
    ]);
    const text = expectSuccess(await run(model, ['--wait'], 'Where is order A-1?'));
    const workflowId = /^Started (cairn-test-[0-9a-f]{8}) \(agent test, task queue test-/.exec(text)?.[1];
    expect(workflowId, text).toBeDefined();
    // A local server's UI is on its port + 1000, as `cairn dev` and the Temporal CLI put it.
    const uiPort = Number(serverAddress().split(':').at(-1)) + 1000;
    expect(text).toContain(`  http://localhost:${uiPort}/namespaces/default/workflows/${workflowId}/`);
    expect(text).toContain('Answer: Order A-1 has shipped.\n  2 turn(s), 1 tool call(s)\n');
    // The test server registers Cairn's search attributes, so the run sets them.
    const description = await w.client.workflow.getHandle(workflowId!).describe();
    expect(description.typedSearchAttributes.get(CairnAgent)).toBe('test');
  });

  it('Ctrl-C in run --wait stops the waiting, not the run: it says the run goes on and how to follow it (exit 130)', async () => {
    // No worker polls this queue: the run waits to start, and the command waits on it.
    const queue = `nobody-${randomUUID()}`;
    const waiting = startLongRunning(
      ['run', 'test', 'Hello', '--task-queue', queue, '--wait'],
      { TEMPORAL_ADDRESS: serverAddress() },
      /^Started /,
    );
    await waiting.ready;
    process.kill(waiting.pid!, 'SIGINT');
    // It exits on its own: a SIGTERM sent as soon as its last line arrives could land while it exits.
    const stopAfter = setTimeout(() => void waiting.stop(), 60_000);
    expect(await waiting.exited).toBe(130);
    clearTimeout(stopAfter);
    const workflowId = /^Started (cairn-test-[0-9a-f]{8})/m.exec(waiting.stdout())?.[1];
    expect(waiting.stderr()).toContain(
      `cairn run: stopped waiting; ${workflowId} goes on. Follow it: cairn watch ${workflowId}`,
    );
    expect((await w.client.workflow.getHandle(workflowId!).describe()).status.name).toBe('RUNNING');
    await w.client.workflow.getHandle(workflowId!).terminate('test over');
  });

  it('run --wait --json prints one document with the result', async () => {
    const { model } = w.script([scriptStep.text('Nothing to look up.')]);
    const workflowId = newId();
    const outcome = await cairn(
      [
        'run',
        'test',
        'Anything?',
        '--model',
        model,
        '--task-queue',
        w.taskQueue,
        '--wait',
        '--json',
        '--id',
        workflowId,
      ],
      {
        TEMPORAL_UI_URL: 'http://ui.example:8080',
      },
    );
    const doc = json<{ runId: string }>(outcome);
    expect(doc).toEqual({
      workflowId,
      runId: doc.runId,
      agent: 'test',
      taskQueue: w.taskQueue,
      url: `http://ui.example:8080/namespaces/default/workflows/${workflowId}/${doc.runId}/history`,
      result: {
        answer: 'Nothing to look up.',
        reason: null,
        outcome: { status: 'answered' },
        turns: 1,
        toolCalls: 0,
        generation: 0,
        errors: [],
        usage: {
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
          calls: 1,
          byModel: { [model]: { inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 1 } },
        },
      },
    });
  });

  it('run then watch follows the run to its answer (text and --json)', async () => {
    const { model } = w.script([
      scriptStep.call('lookup_order', { orderId: 'A-7' }),
      scriptStep.text('A-7 has shipped.'),
    ]);
    const started = json<{ workflowId: string; url: string | null }>(await run(model, ['--json'], 'Where is A-7?'));
    expect(started.workflowId).toMatch(/^cairn-test-[0-9a-f]{8}$/);

    const text = expectSuccess(await cairn(['watch', started.workflowId]));
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(`Watching ${started.workflowId} (agent test)`);
    expect(text).toMatch(/^\[turn 1\] \w+: .*lookup_order/m); // the planner's step log
    expect(lines.at(-1)).toBe('[turn 2] done: A-7 has shipped.');

    // --json: the run's events, one a line, in offset order, from the start to the finish.
    const events = eventLines(await cairn(['watch', started.workflowId, '--json']));
    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    expect(events[0]).toMatchObject({ type: 'run_started', agent: 'test', prompt: 'Where is A-7?' });
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['model_turn', 'tool_start', 'tool_end', 'decision']),
    );
    expect(events.find((e) => e.type === 'tool_end')).toMatchObject({
      name: 'lookup_order',
      toolCallId: '1.1',
      result: { status: 'ok', result: { id: 'A-7' } },
    });
    expect(events.at(-1)).toMatchObject({ type: 'finish', answer: 'A-7 has shipped.', reason: null });
    // A watcher restarted with --from reads on from there.
    const resumed = eventLines(
      await cairn(['watch', started.workflowId, '--json', '--from', String(events.length - 2)]),
    );
    expect(resumed).toEqual(events.slice(-2));
  });

  it('a clarification: watch stops at the question, a wrong id is refused, answer resumes the run, show prints it all', async () => {
    const { model } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
      scriptStep.react((ctx) =>
        notes(ctx).includes('{"window":"afternoon"}')
          ? scriptStep.call('schedule_redelivery', { orderId: 'A-1', window: 'afternoon' })
          : scriptStep.text('The answer did not arrive.'),
      ),
      scriptStep.text('Redelivery of A-1 is scheduled for the afternoon.'),
    ]);
    const workflowId = newId();
    expectSuccess(await run(model, ['--id', workflowId], 'Please redeliver A-1.'));

    const watched = expectWaiting(await cairn(['watch', workflowId]));
    expect(watched).toContain(
      '[turn 1] error schedule_redelivery [1.1] invalid_arguments: A delivery window is required.',
    );
    expect(watched).toMatch(
      /question \S+ \(from schedule_redelivery\): Which delivery window suits you: morning or afternoon\?/,
    );
    expect(watched).toContain(`  answer with: cairn answer ${workflowId} "<text>"`);
    const waiting = eventLines(await cairn(['watch', workflowId, '--json'])).at(-1)!;
    expect(waiting.type).toBe('question');
    const questionId = waiting.clarification.id;

    const refused = expectOneLineFailure(await cairn(['answer', workflowId, 'morning', '--id', 'no-such-question']), 1);
    expect(refused).toBe(
      `cairn answer: The run refused the update: Unknown clarification id "no-such-question"; the pending one is "${questionId}".`,
    );
    // Refused without a trace in history: the run still waits on the same question.
    expect(eventLines(await cairn(['watch', workflowId, '--json'])).at(-1)).toMatchObject({
      type: 'question',
      clarification: { id: questionId },
    });

    const answered = json(await cairn(['answer', workflowId, '{"window":"afternoon"}', '--json']));
    expect(answered).toEqual({ workflowId, questionId, answer: { window: 'afternoon' } });

    const done = expectSuccess(await cairn(['watch', workflowId]));
    expect(done).toContain('done: Redelivery of A-1 is scheduled for the afternoon.');
    expect(await w.client.workflow.getHandle(workflowId).result()).toMatchObject({
      answer: 'Redelivery of A-1 is scheduled for the afternoon.',
      toolCalls: 2,
    });

    const shown = expectSuccess(await cairn(['show', workflowId]));
    expect(shown).toContain('user       Please redeliver A-1.');
    expect(shown).toContain('assistant  → schedule_redelivery {"orderId":"A-1"}  [1.1]');
    expect(shown).toContain('tool       ✗ schedule_redelivery [1.1] invalid_arguments: A delivery window is required.');
    expect(shown).toMatch(/ {13}hint: missing window\b/);
    expect(shown).toContain('{"window":"afternoon"}');
    expect(shown).toMatch(
      /tool {7}✓ schedule_redelivery \[\d+\.1\] \{"orderId":"A-1","window":"afternoon","scheduled":true\}/,
    );
    expect(shown.trimEnd().endsWith('Answer: Redelivery of A-1 is scheduled for the afternoon.')).toBe(true);

    const doc = json<{ state: { transcriptLength: number }; transcript: { role: string }[] }>(
      await cairn(['show', workflowId, '--json']),
    );
    expect(doc.transcript).toHaveLength(doc.state.transcriptLength);
    expect(doc.transcript.map((m) => m.role).slice(0, 4)).toEqual(['system', 'user', 'assistant', 'tool']);

    // The run is over: named as closed.
    expect(expectOneLineFailure(await cairn(['answer', workflowId, 'morning']), 1)).toBe(
      `cairn answer: Run "${workflowId}" is completed; a closed run takes no answers.`,
    );
  });

  it('review accept: the held tool call runs once and the run finishes', async () => {
    const before = calls.issue_refund ?? 0;
    const { model } = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-1', amount: 60 }),
      scriptStep.text('Refunded 60 on A-1.'),
    ]);
    const workflowId = newId();
    expectSuccess(await run(model, ['--id', workflowId], 'Refund A-1.'));

    const watched = expectWaiting(await cairn(['watch', workflowId]));
    expect(watched).toContain('review 1.1: issue_refund {"orderId":"A-1","amount":60}');
    expect(watched).toContain(`  decide with: cairn review ${workflowId} 1.1 accept | edit`);
    expect(calls.issue_refund ?? 0).toBe(before);

    // An invalid edit is refused by the run's validator: exit 1, one line, still pending.
    const refused = expectOneLineFailure(
      await cairn(['review', workflowId, '1.1', 'edit', '{"orderId":"A-1","amount":-5}']),
      1,
    );
    expect(refused).toMatch(
      /^cairn review: The run refused the update: The edited arguments are invalid for issue_refund/,
    );
    expect(expectOneLineFailure(await cairn(['review', workflowId, '9.9', 'accept']), 1)).toBe(
      `cairn review: Run "${workflowId}" has no review pending for tool call "9.9"; pending: 1.1 (issue_refund).`,
    );

    const accepted = expectSuccess(await cairn(['review', workflowId, '1.1', 'accept']));
    expect(accepted).toMatch(
      new RegExp(`^Accepted 1\\.1 \\(issue_refund \\{"orderId":"A-1","amount":60\\}\\) on ${workflowId}\\.`),
    );
    expect(expectSuccess(await cairn(['watch', workflowId]))).toContain('done: Refunded 60 on A-1.');
    expect(calls.issue_refund).toBe(before + 1);
  });

  it('review reject (--json): the call never runs and the model sees why', async () => {
    const before = calls.issue_refund ?? 0;
    const { model } = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-2', amount: 75 }),
      scriptStep.react((ctx) => {
        const tool = ctx.messages.findLast((m) => m.role === 'tool');
        return scriptStep.text(
          JSON.stringify(tool?.role === 'tool' ? tool.content : null).includes('rejected_by_human')
            ? 'No refund: a reviewer said no.'
            : 'Unexpected.',
        );
      }),
    ]);
    const workflowId = newId();
    expectSuccess(await run(model, ['--id', workflowId], 'Refund A-2.'));
    const waiting = eventLines(await cairn(['watch', workflowId, '--json'])).at(-1)!;
    expect(waiting.type).toBe('review');

    const doc = json(await cairn(['review', workflowId, '1.1', 'reject', 'over the limit', '--json']));
    expect(doc).toEqual({
      workflowId,
      toolCallId: '1.1',
      tool: 'issue_refund',
      argsHash: waiting.reviews[0]!.argsHash,
      decision: { type: 'reject', reason: 'over the limit' },
    });
    expect(expectSuccess(await cairn(['watch', workflowId]))).toContain('done: No refund: a reviewer said no.');
    expect(calls.issue_refund ?? 0).toBe(before);
    expect(expectSuccess(await cairn(['show', workflowId]))).toContain(
      'tool       ✗ issue_refund [1.1] rejected_by_human: A human reviewer rejected this call, so it did not run: over the limit',
    );
  });

  it('a run that fails or is terminated: watch ends with how it ended (exit 1), show says it', async () => {
    // A run started by another client with an input the run refuses: it fails in its first workflow task.
    const failing = newId();
    await w.client.workflow.start('agentRun', {
      taskQueue: w.taskQueue,
      workflowId: failing,
      args: [{ agent: 'test', prompt: 'Refund A-9.', policy: { maxTurns: 'many' } }],
    });
    const watched = await cairn(['watch', failing]);
    expect(watched.code, watched.stderr).toBe(1);
    expect(watched.stderr.trimEnd()).toMatch(
      new RegExp(`^cairn watch: Run "${failing}" failed: Invalid run input: .policy\\.maxTurns. must be a number`),
    );
    expect(watched.stderr.trimEnd().split('\n')).toHaveLength(1);
    // It failed before it had any state to show: show says how it failed.
    expect(expectOneLineFailure(await cairn(['show', failing]), 1)).toBe(
      `cairn show: Run "${failing}" failed: Invalid run input: \`policy.maxTurns\` must be a number, not a string.`,
    );

    const { model: held } = w.script([scriptStep.call('issue_refund', { orderId: 'A-10', amount: 99 })]);
    const terminated = newId();
    expectSuccess(await run(held, ['--id', terminated], 'Refund A-10.'));
    await w.client.workflow.getHandle(terminated).terminate('stopped by an operator');
    const [ended, endedJson] = await Promise.all([
      cairn(['watch', terminated]),
      cairn(['watch', terminated, '--json']),
    ]);
    expect(ended.code, ended.stderr).toBe(1);
    expect(ended.stderr.trimEnd()).toMatch(
      new RegExp(`^cairn watch: Run "${terminated}" terminated: .*stopped by an operator`),
    );
    // Its events first, then how it ended.
    expect(ended.stdout).toMatch(/review \S+: issue_refund/);
    expect(endedJson.code, endedJson.stderr).toBe(1);
    const events = endedJson.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; offset: number });
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['model_turn', 'review']));
    expect(events[0]!.offset).toBe(0);
    // A closed run waits on nobody: its review is history, with no command to decide it.
    expect(ended.stdout).toContain(`Watching ${terminated} (agent test), terminated\n`);
    expect(ended.stdout).not.toMatch(/decide with|answer with/);

    // Every command names it as closed: answer, review, say (exit 1, one line), and show (exit 1).
    const [answer, review, say, show] = await Promise.all([
      cairn(['answer', terminated, 'hello']),
      cairn(['review', terminated, '1.1', 'accept']),
      cairn(['say', terminated, 'hello?']),
      cairn(['show', terminated]),
    ]);
    const closed = (command: string, takes: string) =>
      new RegExp(
        `^cairn ${command}: Run "${terminated}" is terminated: .*stopped by an operator.*; a closed run takes no ${takes}\\.$`,
      );
    expect(expectOneLineFailure(answer, 1)).toMatch(closed('answer', 'answers'));
    expect(expectOneLineFailure(review, 1)).toMatch(closed('review', 'review decisions'));
    expect(expectOneLineFailure(say, 1)).toMatch(closed('say', 'messages'));
    expect(show.code, show.stderr).toBe(1);
    expect(show.stdout).toMatch(/The run terminated: .*stopped by an operator/);
    expect(show.stdout).not.toMatch(/decide with|answer with/);
  });

  it('run --wait stops where the run waits on a person: the question or the held call and the command that answers it, exit 3', async () => {
    const { model: asks } = w.script([
      scriptStep.call('schedule_redelivery', { orderId: 'A-1' }),
      scriptStep.text('unused'),
    ]);
    const question = newId();
    const waiting = await run(asks, ['--id', question, '--wait'], 'Please redeliver A-1.');
    const text = expectWaiting(waiting);
    expect(text).toMatch(
      /Waiting on a person \(phase awaiting_clarification\):\n {2}question \S+ \(from schedule_redelivery\): Which delivery window suits you: morning or afternoon\?/,
    );
    expect(text).toContain(`    answer with: cairn answer ${question} "<text>"`);
    expect(waiting.stderr).toBe('');

    const { model: held } = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-4', amount: 70 }),
      scriptStep.text('Refunded.'),
    ]);
    const review = newId();
    const doc = await run(held, ['--id', review, '--wait', '--json'], 'Refund A-4.');
    expect(doc.code, doc.stderr).toBe(3);
    expect(JSON.parse(doc.stdout)).toMatchObject({
      workflowId: review,
      waiting: {
        phase: 'awaiting_review',
        clarification: null,
        reviews: [{ toolCallId: '1.1', name: 'issue_refund', args: { orderId: 'A-4', amount: 70 } }],
      },
    });
    const shown = await cairn(['show', review]);
    expect(shown.code).toBe(3);
    expect(shown.stdout).toContain(`  decide with: cairn review ${review} 1.1 accept`);
    // Answered, the same command exits 0 with the answer.
    expectSuccess(await cairn(['review', review, '1.1', 'accept']));
    expect(expectSuccess(await cairn(['watch', review]))).toContain('done: Refunded.');
  });

  it.skipIf(!existsSync('/usr/bin/script'))(
    'run --wait in a terminal asks right there: the held call, y runs it, and the answer follows (exit 0)',
    async () => {
      const before = calls.issue_refund ?? 0;
      const { model } = w.script([
        scriptStep.call('issue_refund', { orderId: 'A-5', amount: 70 }),
        scriptStep.text('Refunded 70 on A-5.'),
      ]);
      const command = [
        process.execPath,
        TSX,
        join(PACKAGE_ROOT, 'cli', 'main.ts'),
        'run',
        'test',
        'Refund A-5.',
        '--model',
        model,
        '--task-queue',
        w.taskQueue,
        '--wait',
      ]
        .map((arg) => `'${arg}'`)
        .join(' ');
      // `script` gives the command a terminal (a pty); what we write is what a person types.
      const child = spawn('script', ['-qefc', command, '/dev/null'], {
        cwd: PACKAGE_ROOT,
        env: { ...cleanEnvironment(), TEMPORAL_ADDRESS: serverAddress() },
      });
      let out = '';
      let answered = false;
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (!answered && out.includes('run it? [y]es, [n]o, or Enter for later')) {
          answered = true;
          child.stdin.write('y\r');
        }
      });
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code, out).toBe(0);
      expect(out).toContain('? issue_refund {"orderId":"A-5","amount":70}: run it?');
      expect(out).toContain('Answer: Refunded 70 on A-5.');
      expect(out).not.toContain('Waiting on a person');
      expect(calls.issue_refund).toBe(before + 1);
    },
  );

  it('counts the calls refused at validation too: run --wait and show say how many the model made and how many never ran', async () => {
    const { model } = w.script([
      scriptStep.call('lookup_order', { orderId: 'nope' }),
      scriptStep.call('lookup_order', { orderId: 'A-1' }),
      scriptStep.text('A-1 has shipped.'),
    ]);
    const workflowId = newId();
    const text = expectSuccess(await run(model, ['--id', workflowId, '--wait'], 'Where is A-1?'));
    expect(text).toContain('Answer: A-1 has shipped.\n  3 turn(s), 2 tool call(s), 1 refused before running\n');
    // The agent with its version (a digest of its definition).
    expect(expectSuccess(await cairn(['show', workflowId])).split('\n')[0]).toMatch(
      new RegExp(
        `^${workflowId} · agent test@[0-9a-f]{16} · phase done · turn 3 · 2 tool call\\(s\\), 1 refused before running$`,
      ),
    );
  });

  it('a tool that throws: watch shows what it threw, and the run goes on', async () => {
    const { model } = w.script([scriptStep.call('crashy', {}), scriptStep.text('The tool is broken.')]);
    const workflowId = newId();
    expectSuccess(await run(model, ['--id', workflowId, '--wait'], 'Try the crashy tool.'));
    const watched = expectSuccess(await cairn(['watch', workflowId]));
    expect(watched).toContain(
      '[turn 1] error crashy [1.1] internal_error: crashy threw: Cannot read properties of undefined (reading "rows")',
    );
  });

  it('show piped into a reader that stops early (| head -1) exits quietly: no EPIPE trace', async () => {
    const { model } = w.script([scriptStep.text(Array.from({ length: 10_000 }, (_, i) => `line ${i}`).join('\n'))]);
    const workflowId = newId();
    expectSuccess(await run(model, ['--id', workflowId, '--wait'], 'Say a lot.'));
    const piped = await new Promise<Outcome>((resolve) =>
      execFile(
        'sh',
        ['-c', `"${process.execPath}" "${TSX}" cli/main.ts show ${workflowId} | head -1`],
        { cwd: PACKAGE_ROOT, env: { ...cleanEnvironment(), TEMPORAL_ADDRESS: serverAddress() }, timeout: 50_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      ),
    );
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout.split('\n')[0]).toMatch(new RegExp(`^${workflowId} · agent test@[0-9a-f]{16} · phase done`));
    expect(piped.stderr).toBe('');
  });

  it("with no worker on the run's task queue, watch, answer and review say so within their deadline (exit 1); show prints what Temporal keeps", async () => {
    const taskQueue = `nobody-${randomUUID().slice(0, 8)}`;
    const workflowId = newId();
    const started = await cairn(['run', 'test', 'Anyone?', '--id', workflowId, '--task-queue', taskQueue]);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).toContain(
      `no worker has picked up ${workflowId} yet; it starts once a worker polls task queue "${taskQueue}"`,
    );
    const [shown, ...outcomes] = await Promise.all([
      cairn(['show', workflowId]),
      cairn(['watch', workflowId]),
      cairn(['watch', workflowId, '--json']),
      cairn(['answer', workflowId, 'hello']),
      cairn(['review', workflowId, '1.1', 'accept']),
    ]);
    // A read: the run as Temporal keeps it (still working, its request), and that it may be behind.
    expect(shown!.code, shown!.stderr).toBe(0);
    expect(shown!.stdout).toMatch(new RegExp(`^${workflowId} · agent test · phase model · turn 0`));
    expect(shown!.stdout).toContain('No worker answered for this run within 2 s');
    expect(shown!.stdout).toContain('Anyone?');
    for (const outcome of outcomes)
      expect(expectOneLineFailure(outcome, 1)).toMatch(
        new RegExp(
          `^cairn \\w+: No worker is polling task queue "${taskQueue}", so nothing answered run "${workflowId}" within 10 s\\. Start one for it \\(cairn dev, or cairn worker --task-queue ${taskQueue}\\)`,
        ),
      );
  });

  it('npm run --silent cairn -- … --json prints only the JSON document (no npm banner)', async () => {
    const { model } = w.script([scriptStep.text('Nothing to do.')]);
    const outcome = await new Promise<Outcome>((resolve) =>
      execFile(
        'npm',
        [
          'run',
          '--silent',
          'cairn',
          '--',
          'run',
          'test',
          'Anything?',
          '--model',
          model,
          '--task-queue',
          w.taskQueue,
          '--wait',
          '--json',
        ],
        { cwd: PACKAGE_ROOT, env: { ...cleanEnvironment(), TEMPORAL_ADDRESS: serverAddress() }, timeout: 50_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      ),
    );
    expect(json<{ result: { answer: string } }>(outcome).result.answer).toBe('Nothing to do.');
  });

  it('runtime failures are one line with exit 1: unknown run, duplicate id, failed run, no server', async () => {
    // A run that stays open (waiting for a review), so its id cannot be reused.
    const { model } = w.script([
      scriptStep.call('issue_refund', { orderId: 'A-3', amount: 99 }),
      scriptStep.text('unused'),
    ]);
    const workflowId = newId();
    expectSuccess(await run(model, ['--id', workflowId]));
    const [show, watch, answer, duplicate, unknownAgent] = await Promise.all([
      cairn(['show', 'no-such-run']),
      cairn(['watch', 'no-such-run']),
      cairn(['answer', 'no-such-run', 'hello']),
      run(model, ['--id', workflowId]),
      cairn(['run', 'nobody', 'hello', '--task-queue', w.taskQueue]),
    ]);
    expect(expectOneLineFailure(show, 1)).toBe('cairn show: No run with workflow id "no-such-run".');
    expect(expectOneLineFailure(watch, 1)).toBe('cairn watch: No run with workflow id "no-such-run".');
    expect(expectOneLineFailure(answer, 1)).toBe('cairn answer: No run with workflow id "no-such-run".');
    expect(expectOneLineFailure(duplicate, 1)).toBe(
      `cairn run: A run with workflow id "${workflowId}" already exists; pick another --id.`,
    );
    // An unknown agent fails the run's first workflow task: `cairn run` says so at once, naming the agents there are.
    expect(expectOneLineFailure(unknownAgent, 1)).toBe(
      'cairn run: The run failed: Unknown agent "nobody". Known: test, helper',
    );

    const noServer = await cairn(['show', 'x'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(expectOneLineFailure(noServer, 1)).toMatch(
      /^cairn show: No Temporal server at 127\.0\.0\.1:1 \(.+\)\. Start one with `cairn dev`, or set TEMPORAL_ADDRESS\.$/,
    );
  });
});

describe('cairn dev and cairn worker', () => {
  // Integration tests: without the global setup's server (and so its Temporal CLI), fail at once.
  beforeAll(() => void serverAddress());

  it('worker with no server at its address: one line naming the address, no gRPC trace', {
    timeout: 120_000,
  }, async () => {
    const outcome = await cairn(
      ['worker', '--task-queue', `q-${randomUUID()}`],
      { TEMPORAL_ADDRESS: '127.0.0.1:1' },
      90_000,
    );
    expect(expectOneLineFailure(outcome, 1)).toMatch(
      /^cairn worker: No Temporal server at 127\.0\.0\.1:1 \(.+\)\. Start one \(`npx cairn dev`, or `temporal server start-dev`\), or set TEMPORAL_ADDRESS\.$/,
    );
  });

  // `npx cairn worker` is npm → sh → node: npm passes a process manager's SIGTERM to the shell,
  // which dies of it without passing it on. The worker must stop all the same, not poll on orphaned.
  it('worker started by npm stops when the SIGTERM npm forwards kills its shell', { timeout: 240_000 }, async () => {
    const taskQueue = `npx-${randomUUID()}`;
    const tsx = pathToFileURL(join(PACKAGE_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    // `; exit $?` keeps the shell as the worker's parent, as npm's shell is.
    const shell = spawn(
      'sh',
      ['-c', '"$@"; exit $?', 'sh', process.execPath, '--import', tsx, join(PACKAGE_ROOT, 'cli', 'main.ts')].concat([
        'worker',
        '--json',
        '--task-queue',
        taskQueue,
      ]),
      {
        cwd: PACKAGE_ROOT,
        env: {
          ...cleanEnvironment(),
          TSX_TSCONFIG_PATH: join(PACKAGE_ROOT, 'tsconfig.json'),
          TEMPORAL_ADDRESS: serverAddress(),
          npm_command: 'exec',
        },
      },
    );
    let stdout = '';
    // The worker holds stdout until it exits: its end is the worker's, whatever became of the shell.
    const closed = new Promise<void>((resolve) => shell.stdout.on('close', resolve));
    await new Promise<void>((resolve, reject) => {
      shell.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.split('\n').some((line) => line.startsWith('{'))) resolve();
      });
      void closed.then(() => reject(new Error(`worker exited before it was ready: ${stdout}`)));
    });
    const worker = await new Promise<number>((resolve) =>
      execFile('ps', ['-o', 'pid=', '--ppid', String(shell.pid)], (_, out) => resolve(Number(out.trim()))),
    );
    try {
      expect(worker).toBeGreaterThan(0);
      shell.kill('SIGTERM');
      await closed; // it exited, not polling on as an orphan (a timeout here)
      expect(stdout.trim().split('\n')).toHaveLength(1); // and stopped as on SIGTERM: nothing after its ready line
    } finally {
      try {
        process.kill(worker, 'SIGKILL');
      } catch {}
    }
  });

  it('dev --json writes only JSON lines on stdout, from start to shutdown', { timeout: 120_000 }, async () => {
    const [port, uiPort] = await freePorts(2);
    const dir = await mkdtemp(join(tmpdir(), 'cairn-dev-'));
    const taskQueue = `dev-${randomUUID()}`;
    const dev = startLongRunning([
      'dev',
      '--json',
      '--port',
      `${port}`,
      '--ui-port',
      `${uiPort}`,
      '--db-filename',
      join(dir, 'dev.db'),
      '--task-queue',
      taskQueue,
    ]);
    try {
      expect(await dev.ready).toMatchObject({
        taskQueue,
        namespace: 'default',
        uiUrl: `http://localhost:${uiPort}`,
        embeddedServer: true,
      });
    } finally {
      expect(await dev.stop(), dev.stderr()).toBe(0);
      await rm(dir, { recursive: true, force: true });
    }
    const lines = dev.stdout().trimEnd().split('\n');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  });

  it('dev --port P --ui-port U: the hint and the run links name that server and that UI', {
    timeout: 120_000,
  }, async () => {
    const [port, uiPort] = await freePorts(2);
    const dir = await mkdtemp(join(tmpdir(), 'cairn-dev-'));
    const dev = startLongRunning(
      [
        'dev',
        '--port',
        `${port}`,
        '--ui-port',
        `${uiPort}`,
        '--db-filename',
        join(dir, 'dev.db'),
        '--task-queue',
        `dev-${randomUUID()}`,
      ],
      {},
      /^ {2}try: /,
    );
    try {
      await dev.ready;
      const text = dev.stdout();
      expect(text).toContain(
        `Embedded Temporal dev server 127.0.0.1:${port}, namespace default, UI http://localhost:${uiPort}\n`,
      );
      const hint = /^ {2}try: (.*)$/m.exec(text)?.[1];
      expect(hint).toMatch(
        new RegExp(
          `^TEMPORAL_ADDRESS=127\\.0\\.0\\.1:${port} TEMPORAL_UI_URL=http://localhost:${uiPort} cairn run orders "…" --task-queue dev-`,
        ),
      );
      // What the hint says to set is what makes the links right.
      const started = json<{ url: string }>(
        await cairn(['run', 'orders', DEMO_PROMPT, '--task-queue', hint!.split('--task-queue ')[1]!, '--json'], {
          TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
          TEMPORAL_UI_URL: `http://localhost:${uiPort}`,
        }),
      );
      expect(started.url).toMatch(new RegExp(`^http://localhost:${uiPort}/namespaces/default/workflows/cairn-orders-`));
    } finally {
      expect(await dev.stop(), dev.stderr()).toBe(0);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('dev on a port another dev server holds fails at once, naming the port and the flags; the first keeps serving', {
    timeout: 180_000,
  }, async () => {
    const [port, uiPort, otherUiPort] = await freePorts(3);
    const dir = await mkdtemp(join(tmpdir(), 'cairn-dev-'));
    const taskQueue = `dev-${randomUUID()}`;
    const first = startLongRunning([
      'dev',
      '--json',
      '--port',
      `${port}`,
      '--ui-port',
      `${uiPort}`,
      '--db-filename',
      join(dir, 'first.db'),
      '--task-queue',
      taskQueue,
    ]);
    try {
      await first.ready;
      // Same gRPC port, its own UI port, database and queue: it must not join the first server.
      const second = await cairn(
        [
          'dev',
          '--port',
          `${port}`,
          '--ui-port',
          `${otherUiPort}`,
          '--db-filename',
          join(dir, 'second.db'),
          '--task-queue',
          `dev-${randomUUID()}`,
        ],
        { TEMPORAL_ADDRESS: '' },
      );
      const line = expectOneLineFailure(second, 1);
      expect(line).toContain(`Port ${port} is already in use`);
      expect(line).toContain('--port <port>');
      expect(line).toContain(`TEMPORAL_ADDRESS=127.0.0.1:${port}`);
      // And a busy UI port, the same way.
      const busyUi = await cairn(
        ['dev', '--port', `${otherUiPort}`, '--ui-port', `${uiPort}`, '--db-filename', join(dir, 'third.db')],
        { TEMPORAL_ADDRESS: '' },
      );
      expect(expectOneLineFailure(busyUi, 1)).toContain(`Port ${uiPort} is already in use`);
      // The first one still serves: a run on its queue reaches its question.
      const env = { TEMPORAL_ADDRESS: `127.0.0.1:${port}` };
      const { workflowId } = json<{ workflowId: string }>(
        await cairn(['run', 'orders', DEMO_PROMPT, '--task-queue', taskQueue, '--json'], env),
      );
      expect(eventLines(await cairn(['watch', workflowId, '--json'], env)).at(-1)!.type).toBe('question');
    } finally {
      expect(await first.stop(), first.stderr()).toBe(0);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('one database, one dev server: a second cairn dev in the project is refused naming the first (pid, address, UI); cairn worker there names that UI', {
    timeout: 240_000,
  }, async () => {
    const [port, uiPort, otherPort, otherUiPort] = await freePorts(4);
    const dir = await mkdtemp(join(tmpdir(), 'cairn-project-'));
    const config = join(PACKAGE_ROOT, 'cairn.config.ts');
    const taskQueue = `dev-${randomUUID()}`;
    const first = startLongRunning(
      [
        'dev',
        '--json',
        '--config',
        config,
        '--port',
        `${port}`,
        '--ui-port',
        `${uiPort}`,
        '--no-http',
        '--task-queue',
        taskQueue,
      ],
      {},
      undefined,
      undefined,
      dir,
    );
    try {
      await first.ready;
      // Other ports, the same project (and so the same .temporal/cairn.db): refused before any server starts.
      const second = await cairn(
        ['dev', '--config', config, '--port', `${otherPort}`, '--ui-port', `${otherUiPort}`, '--no-http'],
        { TEMPORAL_ADDRESS: '' },
        90_000,
        dir,
      );
      expect(expectOneLineFailure(second, 1)).toBe(
        `cairn dev: ${join(dir, '.temporal', 'cairn.db')} is in use by another dev server (pid ${first.pid}, 127.0.0.1:${port}, UI http://localhost:${uiPort}): one database, one dev server. ` +
          `Use that one (TEMPORAL_ADDRESS=127.0.0.1:${port} cairn dev runs only the worker on it), stop it, or pass --db-filename <another file>.`,
      );
      // A worker of the same project on that server names the UI it really has (not port + 1000).
      const worker = startLongRunning(
        ['worker', '--json', '--config', config, '--task-queue', `w-${randomUUID()}`],
        { TEMPORAL_ADDRESS: `127.0.0.1:${port}` },
        undefined,
        undefined,
        dir,
      );
      try {
        expect(await worker.ready).toMatchObject({ address: `127.0.0.1:${port}`, uiUrl: `http://localhost:${uiPort}` });
      } finally {
        await worker.stop();
      }
      // The first still serves, untouched: a run on its queue reaches its question.
      const env = { TEMPORAL_ADDRESS: `127.0.0.1:${port}` };
      const { workflowId } = json<{ workflowId: string }>(
        await cairn(['run', 'orders', DEMO_PROMPT, '--task-queue', taskQueue, '--json'], env),
      );
      expect(eventLines(await cairn(['watch', workflowId, '--json'], env)).at(-1)!.type).toBe('question');
    } finally {
      expect(await first.stop(), first.stderr()).toBe(0);
    }
    // Stopped, it let go: the lock is gone, and the next cairn dev there starts.
    expect(readdirSync(join(dir, '.temporal')).filter((file) => file.endsWith('.lock'))).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  // The Docker image installs as root and runs as `USER node`: the worker must write nothing into
  // the project or its node_modules. Only root can start a process as another user.
  it.skipIf(process.getuid?.() !== 0)(
    "worker as a user who cannot write the project or node_modules (Docker's USER node) starts and serves runs",
    { timeout: 120_000 },
    async () => {
      const taskQueue = `readonly-${randomUUID()}`;
      const home = await mkdtemp(join(tmpdir(), 'cairn-nobody-'));
      await chown(home, 65534, 65534);
      const worker = startLongRunning(
        ['worker', '--json', '--task-queue', taskQueue],
        { TEMPORAL_ADDRESS: serverAddress(), HOME: home },
        undefined,
        { uid: 65534, gid: 65534 },
      );
      try {
        expect(await worker.ready).toMatchObject({ taskQueue, embeddedServer: false });
        const { workflowId } = json<{ workflowId: string }>(
          await cairn(['run', 'orders', DEMO_PROMPT, '--task-queue', taskQueue, '--json']),
        );
        expect(eventLines(await cairn(['watch', workflowId, '--json'])).at(-1)!.type).toBe('question');
      } finally {
        await worker.stop();
        await rm(home, { recursive: true, force: true });
      }
    },
  );

  it('run orders without --model: two runs on one worker each get their own scripted model and finish', {
    timeout: 240_000,
  }, async () => {
    const taskQueue = `orders-${randomUUID()}`;
    const worker = startLongRunning(['worker', '--json', '--task-queue', taskQueue], {
      TEMPORAL_ADDRESS: serverAddress(),
    });
    try {
      // The test server runs without a UI: the worker names none rather than guess port + 1000.
      expect(await worker.ready).toMatchObject({ taskQueue, embeddedServer: false, uiUrl: null });
      const started = await Promise.all(
        [1, 2].map(() => cairn(['run', 'orders', DEMO_PROMPT, '--task-queue', taskQueue, '--json'])),
      );
      const ids = started.map((outcome) => json<{ workflowId: string }>(outcome).workflowId);
      const answers = await Promise.all(ids.map(finishOrdersRun));
      for (const answer of answers) expect(answer).toContain('refunded the 12.00 shipping fee');
    } finally {
      await worker.stop();
    }
  });
});

/** Drives a demo-script orders run through its question and its review; returns the answer. */
async function finishOrdersRun(workflowId: string): Promise<string | null> {
  const watch = async () => eventLines(await cairn(['watch', workflowId, '--json'])).at(-1)!;
  expect((await watch()).type).toBe('question');
  expectSuccess(await cairn(['answer', workflowId, 'morning']));
  const held = await watch();
  expect(held.type).toBe('review');
  expectSuccess(await cairn(['review', workflowId, held.reviews[0]!.toolCallId, 'accept']));
  const done = await watch();
  expect(done.type).toBe('finish');
  return done.answer;
}

describe('the main job: cairn demo (what `npm run demo` runs), without a terminal', () => {
  it('mends every failure class, tells the story in order, keeps its worker up with --keep until stopped, and exits 0', {
    timeout: 240_000,
  }, async () => {
    const demo = startLongRunning(['demo', '--keep'], { TEMPORAL_ADDRESS: serverAddress() }, /Ctrl-C to stop\.$/);
    await demo.ready;
    const out = demo.stdout();
    // --keep: the last lines say what stays up and how to stop it; SIGTERM ends it cleanly.
    expect(out.trimEnd().split('\n').slice(-2)).toEqual([
      expect.stringMatching(/^See the whole run in the Temporal UI: http:\/\/\S+\/workflows\/cairn-demo-/),
      'The worker stays up (--keep). Ctrl-C to stop.',
    ]);
    expect(await demo.stop(), demo.stderr()).toBe(0);
    // Nobody was asked and --yes was not given: it says it answered by itself, and why.
    expect(out).toContain('  (no terminal: answered automatically) answering: morning');
    expect(out).not.toContain('(--yes)');
    for (const code of [
      'invalid_arguments',
      'semantic_error',
      'partial_data',
      'output_not_json',
      'output_schema_violation',
      'missing_fields',
      'tool_unavailable',
    ])
      expect(out).toContain(`] ${code}: `);
    const order = [
      '✗ search_orders [1.1] invalid_arguments',
      '⇒ repair: model repairs the call, restricted to search_orders',
      '→ search_orders {"customer":"A-1002","status":"shipped","page":1}  [2.1]',
      '⇒ back off: back-off for track_shipment: rate limited',
      'cairn      carrier_status is unavailable and has been removed',
      '⇒ clarify: Which delivery window',
      '⇒ review: issue_refund',
      '✓ issue_refund',
      'Final answer (8 model turns, 12 tool calls, 2 refused before running)',
    ].map((line) => [line, out.indexOf(line)] as const);
    for (const [line, at] of order) expect(at, `${line}\n---\n${out}`).toBeGreaterThanOrEqual(0);
    expect(order.map(([, at]) => at)).toEqual(order.map(([, at]) => at).sort((a, b) => a - b));
    expect(out).not.toMatch(/\[INFO\]|webpack/); // the SDK's logs stay below WARN
    expect(out).toMatch(/Temporal UI: http:\/\/\S+\/workflows\/cairn-demo-/);
    // On a server of the user's own (TEMPORAL_ADDRESS) that registered Cairn's search attributes, the run sets them.
    const workflowId = /Run (cairn-demo-\S+) started/.exec(out)?.[1];
    const connection = await Connection.connect({ address: serverAddress() });
    try {
      expect(
        (await new Client({ connection }).workflow.getHandle(workflowId!).describe()).typedSearchAttributes.get(
          CairnAgent,
        ),
      ).toBe('orders');
    } finally {
      await connection.close();
    }
  });
});
