/**
 * Cairn as a user gets it. `npm pack` (which builds dist/), then `cairn init` run from the
 * unpacked tarball with nothing installed, then the tarball and the starter's dependencies
 * installed from the npm registry (through the npm cache) by the starter's own `npm install`
 * (`cairn init --from <tgz>`). In the new project: the starter type-checks against the shipped
 * .d.ts with skipLibCheck off and with no optional peer but HTTP's, which it has for `npm start`'s
 * inbox (the root, `/workflow`, `/worker`, `/client` and `/http` entry points load; `/mcp` says
 * in one line what to install), its own test runs the agent end to end on an embedded
 * dev server (a question answered and a refund reviewed through cairn-agents/client, the refund
 * made once) and prints no warning, and `cairn worker` serves its cairn.config.ts (Node runs the
 * TypeScript) to `cairn run`, whose run waiting for review the starter's `cairn serve` lists in its
 * inbox. Each step's wall time is printed.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../runtime/package-root.js';
import { resolveTemporalCli, TEMPORAL_CLI_VERSION } from '../runtime/temporal-cli.js';
import { FEATURE_PEERS, OPTIONAL_PEERS } from '../shared/optional-peers.js';
import { serverAddress } from './support/temporal.js';

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** This environment without Temporal settings or vitest's own variables (the starter runs a vitest of its own). */
function cleanEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(TEMPORAL_|VITEST|NODE_OPTIONS$)/.test(key)),
  );
  return { ...env, ...extra };
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = cleanEnvironment(),
): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

function succeeded(outcome: Outcome, what: string): string {
  expect(outcome.code, `${what}\n${outcome.stdout}\n${outcome.stderr}`).toBe(0);
  return outcome.stdout;
}

const timings: string[] = [];
async function timed<T>(step: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await fn();
  } finally {
    timings.push(`${step} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

const node = process.execPath;
let work: string | undefined;
afterAll(async () => {
  console.log(`package test: ${timings.join(' · ')}`);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the package, packed, installed and used as a user would', () => {
  // An integration test: without the global setup's server, fail at once rather than after the install.
  beforeAll(() => void serverAddress());

  it('packs, inits, installs, type-checks, and runs the starter’s agent end to end', { timeout: 900_000 }, async () => {
    work = await mkdtemp(join(tmpdir(), 'cairn-package-'));
    const app = join(work, 'my-agents');

    // npm pack runs `prepare`: dist/ is built from these sources.
    const packed = await timed('pack', () =>
      run('npm', ['pack', '--pack-destination', work!, '--json', '--loglevel=error'], PACKAGE_ROOT, cleanEnvironment()),
    );
    const [pack] = JSON.parse(succeeded(packed, 'npm pack')) as [{ filename: string; files: { path: string }[] }];
    const files = pack.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/cairn.js',
        'dist/entry/index.js',
        'dist/entry/index.d.ts',
        'dist/entry/workflow.js',
        'dist/entry/worker.js',
        'dist/entry/client.js',
        'dist/entry/http.js',
        'dist/entry/testing.js',
        'dist/entry/eval.js',
        'dist/cli/main.js',
        'starter/src/agents.ts',
      ]),
    );
    const unwanted = files.filter(
      (path) =>
        /^(test|bench|scripts|\.ci|\.cache|\.temporal)\//.test(path) ||
        /(^|\/)(fixtures|histories)\//.test(path) ||
        path.startsWith('dist/planner/testing.') || // the planner tests' harness
        /^(Dockerfile|docker-compose\.yml|vitest\.config|tsconfig)/.test(path) ||
        // The starter's own test is a template for users; no test of Cairn's is shipped.
        (/\.test\.[jt]s/.test(path) && !path.startsWith('starter/')),
    );
    expect(unwanted).toEqual([]);
    // Every relative link in the shipped Markdown leads to a file the tarball holds.
    const shipped = new Set(files);
    const broken: string[] = [];
    for (const doc of files.filter((path) => path.endsWith('.md'))) {
      const text = await readFile(join(PACKAGE_ROOT, doc), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith('#')) continue;
        const path = join(dirname(doc), target!.split('#')[0]!);
        if (!shipped.has(path) && !files.some((file) => file.startsWith(`${path}/`))) broken.push(`${doc} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
    const tarball = join(work, pack.filename);

    // `cairn init` needs nothing installed: run it from the unpacked tarball. Without --from it
    // says that the registry's cairn-agents is what the project will get, and how to use this one.
    await mkdir(join(work, 'unpacked'));
    succeeded(await run('tar', ['xzf', tarball, '-C', join(work, 'unpacked')], work), 'tar');
    const cairnBin = join(work, 'unpacked', 'package', 'bin', 'cairn.js');
    const plain = await run(node, [cairnBin, 'init', join(work, 'from-registry'), '--json'], work);
    expect(JSON.parse(succeeded(plain, 'cairn init'))).toMatchObject({ cairnAgents: '^0.2.0' });
    expect(plain.stderr).toMatch(
      /^Note: the project depends on cairn-agents@\^0\.2\.0 from the npm registry, .* --from <its \.tgz \(npm pack\) or folder>/,
    );
    // With --from the tarball, the starter's own `npm install` installs it: no hand-installed tarball.
    const init = await timed('init', () => run(node, [cairnBin, 'init', app, '--from', tarball, '--json'], work!));
    expect(JSON.parse(succeeded(init, 'cairn init'))).toMatchObject({
      dir: app,
      cairnAgents: `file:../${pack.filename}`,
    });
    expect(init.stderr).toBe('');
    const sources = (await readdir(join(app, 'src'))).filter((f) => f.endsWith('.ts'));
    expect(sources.sort()).toEqual(['agents.test.ts', 'agents.ts', 'client.ts', 'scripted-model.ts', 'worker.ts']);
    for (const file of [...sources.map((f) => join(app, 'src', f)), join(app, 'cairn.config.ts')]) {
      const imports = [...(await readFile(file, 'utf8')).matchAll(/from '(cairn-agents[^']*)'/g)].map((m) => m[1]);
      for (const spec of imports)
        expect(
          [
            'cairn-agents',
            'cairn-agents/workflow',
            'cairn-agents/worker',
            'cairn-agents/client',
            'cairn-agents/testing',
          ],
          relative(app, file),
        ).toContain(spec);
    }

    // What the starter's README says: `npm install` (the tarball, peers, vitest, typescript).
    succeeded(
      await timed('install', () =>
        run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], app),
      ),
      'npm install',
    );
    expect(JSON.parse(await readFile(join(app, 'node_modules', 'cairn-agents', 'package.json'), 'utf8'))).toMatchObject(
      { name: 'cairn-agents', version: '0.2.0' },
    );
    // HTTP's optional peers are installed, for `npm start` (cairn dev) to serve the inbox; no other
    // is (tracing, Redis, MCP, A2A, the model providers): the shipped types must not need them, and
    // the root, /workflow, /worker, /client, /eval and /http entry points load without them.
    const http: readonly string[] = FEATURE_PEERS.http;
    for (const peer of http) expect(existsSync(join(app, 'node_modules', peer)), peer).toBe(true);
    for (const optional of [
      '@opentelemetry/sdk-trace-base',
      '@opentelemetry/resources',
      '@temporalio/interceptors-opentelemetry',
      'redis',
      ...Object.keys(OPTIONAL_PEERS).filter((peer) => !http.includes(peer)),
    ])
      expect(existsSync(join(app, 'node_modules', optional)), optional).toBe(false);
    const imported = await run(
      node,
      [
        '--input-type=module',
        '-e',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the template is the child process's code
        "for (const e of ['', '/workflow', '/worker', '/client', '/eval', '/http']) console.log(`cairn-agents${e}`, Object.keys(await import(`cairn-agents${e}`)).length > 0);",
      ],
      app,
    );
    expect(succeeded(imported, 'importing the entry points').trim().split('\n')).toEqual([
      'cairn-agents true',
      'cairn-agents/workflow true',
      'cairn-agents/worker true',
      'cairn-agents/client true',
      'cairn-agents/eval true',
      'cairn-agents/http true',
    ]);
    // An entry point whose peers are missing says in one line which to install: no module-resolution stack.
    const mcp = await run(node, ['--input-type=module', '-e', "import 'cairn-agents/mcp';"], app);
    expect(mcp.code).toBe(1);
    expect(
      mcp.stderr.split('\n').filter((line) => /cairn-agents\/mcp/.test(line)),
      mcp.stderr,
    ).toEqual([
      `[MissingPeerError: cairn-agents/mcp needs @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk@${OPTIONAL_PEERS['@modelcontextprotocol/sdk']}]`,
    ]);
    expect(mcp.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find package|\n\s+at /);
    const megabytes = await run('du', ['-sm', join(app, 'node_modules')], app);
    timings.push(`node_modules ${succeeded(megabytes, 'du').split('\t')[0]} MB`);
    const tree = succeeded(
      await run('npm', ['ls', '@temporalio/workflow', '@temporalio/worker', '--all', '--parseable'], app),
      'npm ls',
    );
    // One copy of each: peers, not dependencies of their own.
    expect(
      new Set(
        tree
          .trim()
          .split('\n')
          .filter((line) => /@temporalio\/(workflow|worker)$/.test(line)),
      ).size,
    ).toBe(2);

    // The starter finds the CLI where every install on the machine does, the machine cache
    // ($XDG_CACHE_HOME/cairn-agents/temporal-cli/<version>): here a fresh one holding the CLI this
    // checkout uses, and no TEMPORAL_CLI_PATH. Its global setup finds it there: no second build.
    const executable = await resolveTemporalCli({ allowDownload: false });
    const xdg = join(work, 'xdg');
    await mkdir(join(xdg, 'cairn-agents', 'temporal-cli', TEMPORAL_CLI_VERSION), { recursive: true });
    if (executable.type === 'existing-path')
      await symlink(executable.path, join(xdg, 'cairn-agents', 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal'));
    const cliPath: Record<string, string> = { XDG_CACHE_HOME: xdg };
    // The starter's test first, alone: its beforeAll (a dev server, a workflow bundle) has the 120 s a
    // user's has, which two tsc runs and a worker's bundle beside it took on a loaded 2-core machine.
    const tests = await timed('starter test', () =>
      run(node, [join(app, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], app, cleanEnvironment(cliPath)),
    );
    const [typecheck, libCheck, served] = await Promise.all([
      timed('tsc', () => run(node, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], app)),
      // And every .d.ts checked (skipLibCheck off), as a strict project of a user's would.
      timed('tsc --skipLibCheck false', () =>
        run(node, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app, '--skipLibCheck', 'false'], app),
      ),
      timed('cairn worker + run', () => serveStarter(app)),
    ]);
    succeeded(typecheck, 'tsc in the starter');
    // Cairn's .d.ts hold nothing tsc refuses, optional peers absent. The one error left is the
    // Temporal SDK's own: @temporalio/common's time.d.ts imports `ms`, which ships no types.
    const libErrors = libCheck.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(
      libErrors.filter(
        (line) => !line.startsWith('node_modules/@temporalio/common/lib/time.d.ts') || !line.includes("module 'ms'"),
      ),
      libCheck.stdout,
    ).toEqual([]);
    expect(succeeded(tests, 'the starter’s test')).toMatch(/1 passed/);
    // A passing test is quiet: no warning about the agent's scripted model, which the test scripts itself.
    expect(tests.stderr).not.toContain('cannot use its model');
    expect(tests.stdout + tests.stderr).not.toContain('Building the Temporal CLI');
    expect(served.ready).toMatchObject({
      agents: ['support'],
      config: join(app, 'cairn.config.ts'),
      embeddedServer: false,
    });
    expect(served.unknown.code).toBe(1);
    // The last line (a loaded machine's worker may take the first task after `run`'s few seconds' grace, which says so first).
    expect(served.unknown.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^cairn run: (The run|Run "cairn-nosuchagent-[0-9a-f]{8}") failed: Unknown agent "nosuchagent"\. Known: support$/,
    );
    expect(served.tried.code, `${served.tried.stdout}\n${served.tried.stderr}`).toBe(3);
    expect(served.tried.stdout).toMatch(
      /review \S+: issue_refund \{"orderId":"A-1001","amount":45,"reason":"6 days late"\}/,
    );
    expect(served.tried.stdout).toMatch(/decide with: npx cairn review cairn-support-[0-9a-f]{8} \S+ accept/);
    // The inbox a reviewer opens lists that run.
    expect(served.inbox).toMatchObject({ page: 200, listed: true });
    expect(served.exit).toBe(0);
    // The starter's own worker with no server at its address: one line naming it, no gRPC trace.
    const noServer = await run(
      node,
      [join(app, 'src', 'worker.ts')],
      app,
      cleanEnvironment({ TEMPORAL_ADDRESS: '127.0.0.1:1' }),
    );
    expect(noServer.code).toBe(1);
    expect(noServer.stderr.trimEnd().split('\n'), noServer.stderr).toEqual([
      expect.stringMatching(/^worker: No Temporal server at 127\.0\.0\.1:1 \(.*\)\. Start one .*TEMPORAL_ADDRESS\.$/),
    ]);
    const noServerClient = await run(
      node,
      [join(app, 'src', 'client.ts'), 'Hello?'],
      app,
      cleanEnvironment({ TEMPORAL_ADDRESS: '127.0.0.1:1' }),
    );
    expect(noServerClient.code).toBe(1);
    expect(noServerClient.stderr.trimEnd().split('\n'), noServerClient.stderr).toEqual([
      expect.stringMatching(/^client: No Temporal server at 127\.0\.0\.1:1 \(.*\)\. Start one .*TEMPORAL_ADDRESS\.$/),
    ]);
  });
});

/** `cairn worker` in the starter, on the test server; `cairn run nosuchagent` against it; then SIGTERM. */
async function serveStarter(app: string): Promise<{
  ready: Record<string, unknown>;
  unknown: Outcome;
  tried: Outcome;
  inbox: { page: number; listed: boolean };
  exit: number | null;
}> {
  const cairn = join(app, 'node_modules', 'cairn-agents', 'bin', 'cairn.js');
  const taskQueue = `starter-${Date.now()}`;
  const env = cleanEnvironment({ TEMPORAL_ADDRESS: serverAddress() });
  const worker = spawn(node, [cairn, 'worker', '--json', '--task-queue', taskQueue], { cwd: app, env });
  let stderr = '';
  worker.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => worker.on('exit', (code) => resolve(code)));
  try {
    const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
      let stdout = '';
      worker.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = stdout.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve(JSON.parse(line) as Record<string, unknown>);
      });
      void exited.then((code) => reject(new Error(`cairn worker exited (${code}): ${stderr}`)));
    });
    const unknown = await run(
      node,
      [cairn, 'run', 'nosuchagent', 'hello', '--task-queue', taskQueue, '--wait'],
      app,
      env,
    );
    // No API key, no --model: the agent's scripted model (cairn.config.ts) looks the order up and
    // holds the refund for review; `run --wait` stops there (exit 3) with the command to run next.
    const tried = await run(
      node,
      [cairn, 'run', 'support', 'My order A-1001 came late.', '--task-queue', taskQueue, '--wait'],
      app,
      { ...env, OPENAI_API_KEY: '' },
    );
    const waiting = /cairn review (cairn-support-[0-9a-f]{8})/.exec(tried.stdout)?.[1];
    const inbox = await starterInbox(app, taskQueue, env, waiting);
    worker.kill('SIGTERM');
    return { ready, unknown, tried, inbox, exit: await exited };
  } finally {
    worker.kill('SIGKILL');
  }
}

/** `cairn serve` of the starter (HTTP's peers installed): its inbox page, and whether `/inbox` lists `workflowId` within 60 s. */
async function starterInbox(
  app: string,
  taskQueue: string,
  env: NodeJS.ProcessEnv,
  workflowId: string | undefined,
): Promise<{ page: number; listed: boolean }> {
  const cairn = join(app, 'node_modules', 'cairn-agents', 'bin', 'cairn.js');
  const server = spawn(node, [cairn, 'serve', '--port', '0', '--task-queue', taskQueue, '--json'], { cwd: app, env });
  let stderr = '';
  server.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      server.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = stdout.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve((JSON.parse(line) as { url: string }).url);
      });
      server.on('exit', (code) => reject(new Error(`cairn serve exited (${code}): ${stderr}`)));
    });
    const page = (await fetch(`${url}/`)).status;
    // Visibility is eventually consistent: the run shows up within moments of waiting.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { items } = (await (await fetch(`${url}/inbox`)).json()) as { items: { runId: string }[] };
      if (items.some((item) => item.runId === workflowId)) return { page, listed: true };
      if (Date.now() > deadline) return { page, listed: false };
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    server.kill('SIGKILL');
  }
}
