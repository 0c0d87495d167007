import { spawnSync } from 'node:child_process';
import { chmod, chown, lstat, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolFailure } from '../../shared/failures/tool-failure.js';
import { DEFAULT_WORKSPACE_LIMITS, type WorkspaceLimits } from '../../shared/workspace/workspace-config.js';
import type { CommandResult, WorkspaceCommand } from '../../shared/workspace/workspace.js';
import { bubblewrapDriver, processesOf } from './bubblewrap-driver.js';
import { checkCommand } from './sandbox-driver.js';

const hasBwrap = spawnSync('bwrap', ['--version']).status === 0;
const asRoot = process.getuid?.() === 0;
// One uid of its own for this file, so "no process left" counts only this file's commands.
const UID = 2_100_000 + (process.pid % 1000) * 8;
const limits: Required<WorkspaceLimits> = {
  ...DEFAULT_WORKSPACE_LIMITS,
  commandMs: 30_000,
  memoryBytes: 1024 * 1024 * 1024,
  processes: 32,
  fileBytes: 1024 * 1024,
  outputBytes: 1024 * 1024,
  outputTailBytes: 1024,
};
const CANARY = `cairn-canary-${process.pid}-secret`;

describe('checkCommand (shared by every driver)', () => {
  const refused = (command: WorkspaceCommand) => {
    try {
      checkCommand(command, limits);
    } catch (error) {
      return ToolFailure.isInstance(error) ? error.code : 'threw';
    }
    return 'accepted';
  };
  it('wants argv xor shell, a cwd inside, valid env names; caps the timeout at maxCommandMs', () => {
    expect(refused({ argv: ['ls'], shell: 'ls' })).toBe('invalid_arguments');
    expect(refused({})).toBe('invalid_arguments');
    expect(refused({ argv: [] })).toBe('invalid_arguments');
    for (const cwd of ['..', '../x', 'a/../..', '/etc'])
      expect(refused({ argv: ['ls'], cwd })).toBe('invalid_arguments');
    expect(refused({ argv: ['ls'], env: { 'A=B': 'x' } })).toBe('invalid_arguments');
    expect(checkCommand({ shell: 'echo', cwd: 'a/./b/../c' }, limits)).toMatchObject({
      argv: ['/bin/sh', '-c', 'echo'],
      cwd: 'a/c',
      timeoutMs: limits.commandMs,
    });
    expect(checkCommand({ argv: ['ls'], timeoutMs: 10 ** 9 }, limits).timeoutMs).toBe(limits.maxCommandMs);
    expect(checkCommand({ argv: ['ls'], env: { HOME: '/tmp', X: '1' } }, limits).env).toMatchObject({
      HOME: '/tmp',
      X: '1',
    });
  });
});

describe.skipIf(!hasBwrap)(
  `the bubblewrap sandbox${hasBwrap ? '' : ' (skipped: bwrap is not installed; apt-get install bubblewrap)'}`,
  () => {
    const driver = bubblewrapDriver({ uids: { first: UID, count: 1 } });
    let parent = '';
    let root = '';

    const run = (
      command: WorkspaceCommand,
      options: { network?: boolean; signal?: AbortSignal; limits?: Partial<WorkspaceLimits> } = {},
    ) =>
      driver.run({
        root,
        command,
        limits: { ...limits, ...options.limits },
        network: options.network ?? false,
        signal: options.signal ?? new AbortController().signal,
      });
    const failure = async (promise: Promise<CommandResult>) => {
      try {
        await promise;
      } catch (error) {
        return error as ToolFailure;
      }
      throw new Error('expected the command to fail');
    };
    const noneLeft = async () => {
      if (asRoot) expect(await processesOf(UID)).toBe(0);
    };

    beforeAll(async () => {
      process.env.CAIRN_SANDBOX_CANARY = CANARY;
      parent = await mkdtemp(join(tmpdir(), 'cairn-sandbox-test-'));
      await chmod(parent, 0o711); // the sandbox uid opens the bind source through it
    });
    afterAll(async () => {
      delete process.env.CAIRN_SANDBOX_CANARY;
      await rm(parent, { recursive: true, force: true });
    });
    let n = 0;
    const freshRoot = async () => {
      root = join(parent, `ws-${n++}`);
      await mkdir(root);
      await writeFile(join(root, 'hello.txt'), 'hello\n');
    };

    it('is usable on this machine', async () => {
      expect(await driver.check()).toBeUndefined();
    });

    it('returns exit codes and the tails of stdout and stderr, cut at a character boundary', async () => {
      await freshRoot();
      const result = await run({
        shell: `printf 'é%.0s' $(seq 1 1000); printf x; echo oops >&2; cat hello.txt >&2; exit 7`,
      });
      expect(result.exitCode).toBe(7);
      expect(result.stdoutBytes).toBe(2001);
      expect(result.stdout).toBe(`${'é'.repeat(511)}x`); // 1024 bytes back lands mid-character: skipped
      expect(result.stderr).toBe('oops\nhello\n');
      expect(result.truncated).toBe(true);
      expect((await run({ argv: ['sh', '-c', 'kill -9 $$'] })).exitCode).toBe(128 + 9);
      const missing = await run({ argv: ['no-such-program', '--flag'] });
      expect(missing.exitCode).toBe(127);
      expect(missing.stderr).toContain('no-such-program: command not found');
    });

    it('runs in cwd, refuses a cwd that leads out through a symlink or does not exist', async () => {
      await freshRoot();
      await mkdir(join(root, 'src/app'), { recursive: true });
      await symlink('/etc', join(root, 'out'));
      // A directory outside, owned by someone else, behind a link: a chown through the link would show.
      const outside = join(parent, `outside-${n}`);
      await mkdir(outside);
      await writeFile(join(outside, 'f'), 'x');
      if (asRoot) for (const path of [outside, join(outside, 'f')]) await chown(path, 12_345, 12_345);
      await symlink(outside, join(root, 'outside'));
      expect((await run({ argv: ['pwd'], cwd: 'src/app' })).stdout).toBe('/workspace/src/app\n');
      expect((await failure(run({ argv: ['pwd'], cwd: 'out' }))).code).toBe('invalid_arguments');
      expect((await failure(run({ argv: ['pwd'], cwd: 'nope' }))).code).toBe('invalid_arguments');
      expect((await failure(run({ argv: ['pwd'], cwd: '../..' }))).code).toBe('invalid_arguments');
      // The chown to the sandbox uid and back went around the link, not through it.
      if (asRoot) for (const path of [outside, join(outside, 'f')]) expect((await stat(path)).uid).toBe(12_345);
      expect((await run({ shell: 'ls out/ >/dev/null; touch out/x; echo $?' })).stdout).not.toBe('0\n');
    });

    it("does not show the worker's environment, only its own and the call's env", async () => {
      await freshRoot();
      const result = await run({
        shell: 'env; cat /proc/1/environ /proc/*/environ 2>/dev/null | tr "\\0" "\\n"',
        env: { MY_VAR: 'mine' },
      });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('HOME=/workspace');
      expect(result.stdout).toContain('MY_VAR=mine');
      expect(result.stdout).not.toContain(CANARY);
      expect(result.stdout).not.toContain('CAIRN_SANDBOX_CANARY');
      expect(process.env.CAIRN_SANDBOX_CANARY).toBe(CANARY); // it was there to leak
    });

    it('sees neither the project, nor /root, nor the home; cannot write /usr or /; writes the workspace as its uid', async () => {
      await freshRoot();
      const project = process.cwd();
      for (const path of [join(project, 'package.json'), '/root', homedir(), '/etc/shadow', '/work']) {
        const result = await run({ argv: ['ls', '-la', path] });
        expect(result.exitCode, `${path} is visible: ${result.stdout}`).not.toBe(0);
      }
      const readOnly = await run({ shell: 'for p in /usr/x /x /etc/x /bin/x; do touch $p 2>/dev/null; echo $?; done' });
      expect(readOnly.stdout).toMatch(/^([1-9]\d*\n){4}$/);
      const writes = await run({ shell: 'echo ok > made.txt && mkdir -p d/e && echo y > d/e/f' });
      expect(writes.exitCode).toBe(0);
      for (const made of ['made.txt', 'd/e/f', 'd']) {
        const info = await stat(join(root, made));
        expect(info.uid).toBe(asRoot ? UID : process.getuid?.());
      }
    });

    it.skipIf(!asRoot)(
      'as root: keeps the copy at its uid, chowns only what the worker wrote since, and still reads and removes mode-000 files',
      async () => {
        await freshRoot();
        expect((await run({ shell: 'mkdir -p a/b && echo x > a/b/f && chmod 000 a/b/f a/b a' })).exitCode).toBe(0);
        // No chown back: the command's files stay its uid's, and root reads and lists them anyway.
        expect((await lstat(join(root, 'a'))).uid).toBe(UID);
        expect(spawnSync('cat', [join(root, 'a/b/f')]).stdout.toString()).toBe('x\n');
        const hello = await lstat(join(root, 'hello.txt'), { bigint: true });
        expect(hello.uid).toBe(BigInt(UID));
        await writeFile(join(root, 'worker.txt'), 'w\n'); // as write_file would, between commands
        const next = await run({ shell: 'cat worker.txt && echo more >> worker.txt && echo $?' });
        expect(next.stdout).toBe('w\n0\n');
        expect((await lstat(join(root, 'worker.txt'))).uid).toBe(UID);
        // Already the uid's: not chowned again (a chown always moves ctime).
        expect((await lstat(join(root, 'hello.txt'), { bigint: true })).ctimeNs).toBe(hello.ctimeNs);
        await rm(root, { recursive: true });
        expect(spawnSync('ls', [root]).status).not.toBe(0);
      },
    );

    it('a symlink made inside to /etc/shadow shows the sandbox /etc, not the host secret', async () => {
      await freshRoot();
      const result = await run({ shell: 'ln -s /etc/shadow leak && cat leak; echo "exit $?"; ls /etc' });
      expect(result.stdout).toContain('exit 1');
      expect(result.stdout).not.toMatch(/root:[^:]*:\d+:/);
      expect(result.stdout).not.toContain('shadow');
      expect((await lstat(join(root, 'leak'))).isSymbolicLink()).toBe(true); // left for the snapshot engine to refuse
    });

    it('has no network unless asked (Redis on 127.0.0.1:6379)', async () => {
      await freshRoot();
      const ping = {
        argv: ['bash', '-c', 'exec 3<>/dev/tcp/127.0.0.1/6379 && printf "PING\\r\\n" >&3 && head -c 5 <&3'],
      };
      const closed = await run(ping);
      expect(closed.exitCode).not.toBe(0);
      expect(closed.stdout).not.toContain('PONG');
      const redisUp = await new Promise<boolean>((resolve) => {
        const socket = connect(6379, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
        socket.unref();
        socket.once('connect', () => socket.destroy());
      });
      if (!redisUp) return void console.warn('network:true half skipped: no Redis on 127.0.0.1:6379');
      const open = await run(ping, { network: true });
      expect(open.stdout).toBe('+PONG');
    });

    it('caps processes (NPROC), contains a fork bomb, and leaves no process', async () => {
      await freshRoot();
      // dash gives up at the first fork the kernel refuses: past `processes`, it does.
      const many = await run({ shell: 'i=0; while [ $i -lt 100 ]; do sleep 60 & i=$((i+1)); echo $i; done' });
      expect(many.stderr).toMatch(/fork/i);
      const started = Number(many.stdout.trim().split('\n').at(-1));
      // Some of the budget may be taken by an earlier sandbox's PID 1 of the same uid, still a zombie
      // (this host's init reaps late): the cap holds, and most of it is there for the command.
      expect(started).toBeGreaterThan(limits.processes / 4);
      expect(started).toBeLessThanOrEqual(limits.processes);
      await noneLeft();
      const bomb = await run({ shell: 'f(){ f|f& }; f; wait' }, { limits: { commandMs: 3_000 } }).catch(
        (error) => error,
      );
      // Either the bomb fizzled (NPROC refused its forks) or its timeout killed it: the worker is fine.
      if (!(bomb && typeof bomb === 'object' && 'exitCode' in bomb)) expect((bomb as ToolFailure).code).toBe('timeout');
      await noneLeft();
      expect(spawnSync('true').status).toBe(0);
    });

    it('a command that never ends: a timeout failure with a hint, and nothing left running', async () => {
      await freshRoot();
      const error = await failure(run({ shell: 'sleep 1000 & sleep 1000', timeoutMs: 300 }));
      expect(error.code).toBe('timeout');
      expect(error.message).toContain('0.3 s');
      expect(error.message).toContain('left as it was');
      expect(error.hint?.message).toContain('timeoutMs');
      await noneLeft();
      const capped = await failure(
        run({ argv: ['sleep', '1000'], timeoutMs: 60_000 }, { limits: { maxCommandMs: 300 } }),
      );
      expect(capped.hint?.message).toContain('longest');
    });

    it('1 GB of output is stopped at outputBytes, in bounded memory', async () => {
      await freshRoot();
      const before = process.memoryUsage().rss;
      const error = await failure(run({ shell: 'head -c 1G /dev/zero' }));
      expect(error.code).toBe('invalid_arguments');
      expect(error.hint?.message).toContain('tail');
      const printed = Number(/stdout (\d+)/.exec(error.message)?.[1]);
      expect(printed).toBeGreaterThan(limits.outputBytes - 1024 * 1024);
      expect(printed).toBeLessThan(limits.outputBytes + 1024 * 1024); // stopped within a few pipe reads
      expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
      await noneLeft();
    });

    it('a file past fileBytes fails the command, not the worker', async () => {
      await freshRoot();
      const result = await run({ shell: 'head -c 3M /dev/zero > big.bin; echo "head: $?"' });
      expect(result.stdout).toMatch(/^head: [1-9]\d*\n$/); // EFBIG, or 153 (SIGXFSZ)
      expect((await stat(join(root, 'big.bin'))).size).toBeLessThanOrEqual(limits.fileBytes);
    });

    it('the abort signal kills the command and rejects as a cancellation', async () => {
      await freshRoot();
      const early = new AbortController();
      early.abort();
      expect((await failure(run({ argv: ['true'] }, { signal: early.signal }))).name).toBe('AbortError');
      const controller = new AbortController();
      const running = run({ shell: 'echo started; sleep 1000' }, { signal: controller.signal });
      // Wait until the command's processes exist (as root they have a uid to count); then abort.
      if (asRoot) while ((await processesOf(UID)) < 3) await new Promise((resolve) => setTimeout(resolve, 20));
      controller.abort();
      expect((await failure(running)).name).toBe('AbortError');
      await noneLeft();
    });
  },
);
