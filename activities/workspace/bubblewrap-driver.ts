/**
 * The default local sandbox: Debian's bubblewrap (`bwrap`) under `prlimit`. Worker only (Linux).
 *
 * Each command gets its own user, mount, PID, network, IPC, UTS and cgroup namespaces and may not
 * create further user namespaces. It sees `/usr` (read-only, with the /bin, /lib… links of the
 * host), a minimal `/etc` (alternatives, ld.so, passwd, group, TLS roots; resolv.conf and hosts only
 * with network), a fresh `/proc` and `/dev`, a private size-bounded tmpfs on `/tmp` and `/dev/shm`,
 * and the working copy at `/workspace` — the only writable place that outlives the command. `/` and
 * `/dev` are read-only. Not the worker's home, not the project, not the worker's environment.
 * Without `network` the network namespace has no interface but loopback (the host's 127.0.0.1 is
 * not reachable). rlimits: processes (NPROC), address space (AS), file size (FSIZE: EFBIG, or death
 * by SIGXFSZ), CPU seconds (the wall timeout, per process) and no core files.
 *
 * Identity: when the worker is root, each command runs as a uid from a pool (by default 64 uids
 * from 2,000,000 + (pid % 4096) × 64; set `uids` when several workers share a machine and you want
 * them disjoint for sure), so NPROC bites (root is exempt from it) and two live commands never share
 * a process budget. A working copy keeps the uid of its last command while no other live command
 * holds it (a bounded map by path), and before a command everything in the copy not yet owned by
 * that uid — what the worker wrote since (write_file, apply_patch, a restore), or all of it when the
 * uid changed — is lchowned to it (the kernel clears set-uid bits on chown). There is no chown back:
 * the worker, as root with CAP_DAC_OVERRIDE and CAP_FOWNER, reads, chmods and removes the command's
 * files whatever their owner and mode (snapshot-scan.ts resets modes); only a root worker without
 * those capabilities chowns back. Between commands nothing runs as that uid, and no other copy is
 * mounted in a sandbox, so a copy owned by a uid another copy's command later gets is out of reach.
 * The working copy's parent directories must be searchable by others (o+x, e.g. a 0711 parent): the
 * sandbox uid opens the bind mount's source. When the worker is not root, bwrap runs as the worker's
 * own user and no chown happens; NPROC then counts every process and thread of that user, so the
 * limit is `processes` + `nonRootProcessSlack` (default 1024) and guards less.
 *
 * What it does not isolate: the kernel is shared (a kernel bug is an escape); CPU and memory are
 * bounded per process, not per sandbox (no cgroup); disk written to /workspace is bounded only by
 * FSIZE per file until the snapshot checks `limits.bytes`; with `network` the command reaches
 * whatever the worker's network reaches, 127.0.0.1 services included.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, constants as fsConstants, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { access, lchown, lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { delimiter, dirname, join, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ToolFailure } from '../../shared/failures/tool-failure.js';
import type { CommandResult } from '../../shared/workspace/workspace.js';
import { OutputTail } from './output-tail.js';
import { type CheckedCommand, checkCommand, type SandboxDriver, type SandboxRunInput } from './sandbox-driver.js';

export interface BubblewrapDriverOptions {
  /** Uids for commands when the worker is root: `count` of them from `first`; at most `count` commands at once. */
  readonly uids?: { readonly first: number; readonly count: number };
  /** Host directories (e.g. a toolchain under /opt) bound read-only at the same path. */
  readonly readOnlyPaths?: readonly string[];
  /** Size of the tmpfs on /tmp and of the one on /dev/shm (each). Default: limits.fileBytes. */
  readonly tmpBytes?: number;
  /** When the worker is not root: NPROC headroom for the worker user's own processes. Default 1024. */
  readonly nonRootProcessSlack?: number;
}

const ETC_ALWAYS = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/passwd',
  '/etc/group',
  '/etc/ssl',
  '/etc/ca-certificates',
];
const ETC_NETWORK = ['/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/host.conf', '/etc/gai.conf'];
/** Top-level names that merged-/usr hosts make links into /usr (older hosts: real directories). */
const USR_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];
/** How long to wait for the sandbox to be gone after a kill before giving up on it. */
const KILL_GRACE_MS = 5_000;
/** How many working copies' last uids are remembered (oldest forgotten first). */
const REMEMBERED_COPIES = 1_024;
/** How long a command waits for its copy's uid to lose its last zombie before taking another uid. */
const REAP_WAIT_MS = 5;

/** The bubblewrap driver; `check()` says what is missing on this machine. */
export function bubblewrapDriver(options: BubblewrapDriverOptions = {}): SandboxDriver {
  const asRoot = process.getuid?.() === 0;
  const uids = options.uids ?? { first: 2_000_000 + (process.pid % 4096) * 64, count: 64 };
  const free = Array.from({ length: uids.count }, (_, i) => uids.first + i);
  const worker = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const chownBack = asRoot && !rootBypassesPermissions();
  /** Working copy (real path) → the uid its files were last chowned to; insertion order is recency. */
  const copyUid = new Map<string, number>();
  /** Uid → the pid of its last sandbox's PID 1, which may linger as a zombie (it counts toward NPROC). */
  const lastInit = new Map<number, number>();
  let programs: { bwrap: string; prlimit: string } | undefined;

  async function resolvePrograms() {
    if (programs === undefined) {
      const [bwrap, prlimit] = await Promise.all(['bwrap', 'prlimit'].map(findProgram));
      if (bwrap === undefined || prlimit === undefined) return undefined;
      programs = { bwrap, prlimit };
    }
    return programs;
  }

  return {
    name: 'bubblewrap',

    async check() {
      const found = await resolvePrograms();
      if (found === undefined) {
        if ((await findProgram('bwrap')) === undefined)
          return 'Workspace commands need bubblewrap: install it (apt-get install bubblewrap; dnf install bubblewrap).';
        return 'Workspace commands need prlimit: install util-linux.';
      }
      // A throwaway sandbox tells whether this kernel lets bwrap make its namespaces.
      const probe = await collect(
        found.bwrap,
        [...sandboxArgs({ network: false, tmpBytes: 65_536, extra: [] }), '--', '/bin/true'],
        asRoot ? uids.first : undefined,
      );
      if (probe.code === 0) return undefined;
      const line = probe.stderr.trim().split('\n')[0] ?? `exit ${probe.code}`;
      return `Workspace commands need unprivileged user namespaces, which this machine refuses (bwrap: ${line}): allow them (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap).`;
    },

    async run(input: SandboxRunInput): Promise<CommandResult> {
      const checked = checkCommand(input.command, input.limits);
      throwIfAborted(input.signal);
      const found = await resolvePrograms();
      if (found === undefined)
        throw ToolFailure.unavailable('Workspace commands need bubblewrap and prlimit on the worker; one is missing.');
      const root = await realpath(input.root);
      await checkCwd(root, checked.cwd, input.command.cwd);
      if (!asRoot) return execute(found, root, checked, input, undefined);
      await checkReachable(root);
      const uid = await takeUid(root);
      if (uid === undefined)
        throw new ToolFailure(
          'tool_unavailable',
          `All ${uids.count} sandbox uids are in use: too many commands at once on this worker.`,
          {
            hint: { message: 'Wait for a running command to end, then try again.', retryAfterMs: 1_000 },
          },
        );
      copyUid.delete(root);
      try {
        await chownTree(root, uid, uid);
        copyUid.set(root, uid);
        if (copyUid.size > REMEMBERED_COPIES) copyUid.delete(copyUid.keys().next().value as string);
        return await execute(found, root, checked, input, uid);
      } finally {
        if (chownBack) {
          copyUid.delete(root);
          await chownTree(root, worker.uid, worker.gid);
        }
        free.push(uid);
      }
    },
  };

  /**
   * The copy's own uid when no live command holds it, once its last sandbox's PID 1 is reaped (a
   * zombie would eat one of `processes`; a prompt init (tini, systemd) reaps it within a few ms, so it is
   * worth a short wait against a chown of the whole copy); else first in, first out: a uid rests
   * before it is used again.
   */
  async function takeUid(root: string): Promise<number | undefined> {
    const own = copyUid.get(root);
    if (own !== undefined && free.includes(own)) {
      const init = lastInit.get(own);
      const deadline = performance.now() + REAP_WAIT_MS;
      for (let delay = 1; init !== undefined && existsSync(`/proc/${init}`); delay *= 2) {
        if (performance.now() >= deadline) return free.shift();
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
      const at = free.indexOf(own); // another command may have taken it while we waited
      if (at >= 0) return free.splice(at, 1)[0];
    }
    return free.shift();
  }

  function sandboxArgs(at: { network: boolean; tmpBytes: number; extra: readonly string[] }): string[] {
    const args = ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session'];
    if (at.network) args.push('--share-net');
    args.push('--hostname', 'workspace', '--ro-bind', '/usr', '/usr');
    for (const name of USR_LINKS) {
      const host = `/${name}`;
      const kind = lstatKind(host);
      if (kind === 'symlink') args.push('--symlink', readlinkSync(host), host);
      else if (kind === 'dir') args.push('--ro-bind', host, host);
    }
    args.push('--proc', '/proc', '--dev', '/dev');
    args.push('--size', String(at.tmpBytes), '--tmpfs', '/tmp', '--size', String(at.tmpBytes), '--tmpfs', '/dev/shm');
    args.push('--remount-ro', '/dev', '--dir', '/etc');
    for (const path of at.network ? [...ETC_ALWAYS, ...ETC_NETWORK] : ETC_ALWAYS)
      args.push('--ro-bind-try', path, path);
    for (const path of options.readOnlyPaths ?? []) args.push('--ro-bind', path, path);
    args.push(...at.extra, '--remount-ro', '/');
    return args;
  }

  async function execute(
    found: { bwrap: string; prlimit: string },
    root: string,
    checked: CheckedCommand,
    input: SandboxRunInput,
    uid: number | undefined,
  ): Promise<CommandResult> {
    const { limits } = input;
    const cpuSeconds = Math.ceil(checked.timeoutMs / 1000) + 1;
    const nproc = limits.processes + 2 + (uid === undefined ? (options.nonRootProcessSlack ?? 1024) : 0);
    const env: string[] = ['--clearenv'];
    for (const [name, value] of Object.entries(checked.env)) env.push('--setenv', name, value);
    const workdir = checked.cwd === '' ? '/workspace' : `/workspace/${checked.cwd}`;
    const bwrapArgs = sandboxArgs({
      network: input.network,
      tmpBytes: options.tmpBytes ?? limits.fileBytes,
      extra: ['--bind', root, '/workspace'],
    });
    const args = [
      `--nproc=${nproc}:${nproc}`,
      `--as=${limits.memoryBytes}:${limits.memoryBytes}`,
      `--fsize=${limits.fileBytes}:${limits.fileBytes}`,
      `--cpu=${cpuSeconds}:${cpuSeconds + 1}`,
      '--core=0:0',
      '--',
      found.bwrap,
      ...bwrapArgs,
      '--chdir',
      workdir,
      ...env,
      '--info-fd',
      '3',
      '--',
      ...checked.argv,
    ];
    const started = performance.now();
    const child = spawn(found.prlimit, args, {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      detached: true, // its own process group: a signal to the worker's group does not reach it
      env: { PATH: '/usr/bin:/bin' },
      ...(uid === undefined ? {} : { uid, gid: uid }),
    });
    return await supervise(child, checked, input, started, uid);
  }

  function supervise(
    child: ChildProcess,
    checked: CheckedCommand,
    input: SandboxRunInput,
    started: number,
    uid: number | undefined,
  ): Promise<CommandResult> {
    const { limits, signal } = input;
    const stdout = new OutputTail(limits.outputTailBytes);
    const stderr = new OutputTail(limits.outputTailBytes);
    let info = '';
    let sandboxPid: number | undefined;
    let stopped: 'timeout' | 'output' | 'abort' | undefined;
    let grace: NodeJS.Timeout | undefined;

    const kill = (why: 'timeout' | 'output' | 'abort') => {
      if (stopped !== undefined) return;
      stopped = why;
      // Killing the sandbox's PID 1 (bwrap's init) takes its whole namespace down; before PID 1
      // exists, kill bwrap's group (--die-with-parent takes the rest).
      if (sandboxPid !== undefined) signalPid(sandboxPid);
      else signalPid(-(child.pid ?? 0));
      grace = setTimeout(() => signalPid(-(child.pid ?? 0)), KILL_GRACE_MS);
    };
    const onData = (tail: OutputTail) => (chunk: Buffer) => {
      if (stopped === 'output') return;
      tail.push(chunk);
      if (stdout.total + stderr.total > limits.outputBytes) kill('output');
    };
    child.stdout?.on('data', onData(stdout));
    child.stderr?.on('data', onData(stderr));
    (child.stdio[3] as NodeJS.ReadableStream | null)?.on('data', (chunk: Buffer) => {
      info += chunk.toString('utf8');
      const pid = /"child-pid"\s*:\s*(\d+)/.exec(info)?.[1];
      if (pid !== undefined && sandboxPid === undefined) {
        sandboxPid = Number(pid);
        if (uid !== undefined) lastInit.set(uid, sandboxPid);
        if (stopped !== undefined) signalPid(sandboxPid);
      }
    });
    const timer = setTimeout(() => kill('timeout'), checked.timeoutMs);
    const onAbort = () => kill('abort');
    signal.addEventListener('abort', onAbort, { once: true });

    return new Promise<CommandResult>((resolve, reject) => {
      child.once('error', (error) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        reject(ToolFailure.unavailable(`The sandbox could not start: ${error.message}`));
      });
      child.once('close', async (code, signalName) => {
        clearTimeout(timer);
        clearTimeout(grace);
        signal.removeEventListener('abort', onAbort);
        const durationMs = Math.round(performance.now() - started);
        if (sandboxPid !== undefined) await namespaceGone(sandboxPid);
        if (stopped !== undefined && uid !== undefined) await processesGone(uid);
        if (stopped === 'abort') return reject(abortReason(signal));
        if (stopped === 'timeout') return reject(timeoutFailure(checked, input));
        if (stopped === 'output') return reject(outputFailure(limits.outputBytes, stdout, stderr));
        let exitCode = code ?? 128 + (signalName === null ? 0 : (osConstants.signals[signalName] ?? 0));
        let stderrText = stderr.text();
        // bwrap could not exec argv[0]: answer as a shell would (127 not found, 126 not executable).
        const execFailed = /^bwrap: execvp (.*): (.*)\n?$/.exec(stderrText);
        let stderrBytes = stderr.total;
        if (exitCode === 1 && stdout.total === 0 && execFailed !== null) {
          exitCode = /No such file/.test(execFailed[2] as string) ? 127 : 126;
          stderrText = `${execFailed[1]}: ${exitCode === 127 ? 'command not found' : execFailed[2]} (in the sandbox, which sees /usr, /workspace and /tmp)\n`;
          stderrBytes = Buffer.byteLength(stderrText);
        }
        resolve({
          exitCode,
          stdout: stdout.text(),
          stderr: stderrText,
          stdoutBytes: stdout.total,
          stderrBytes,
          truncated: stdout.truncated || stderr.truncated,
          durationMs,
        });
      });
    });
  }
}

function timeoutFailure(checked: CheckedCommand, input: SandboxRunInput): ToolFailure {
  const seconds = checked.timeoutMs / 1000;
  const max = input.limits.maxCommandMs;
  return new ToolFailure(
    'timeout',
    `The command did not finish within ${seconds} s and was killed with everything it started; the workspace is left as it was before the command.`,
    {
      hint: {
        message:
          checked.timeoutMs < max
            ? `Pass a longer timeoutMs (at most ${max}), or run a smaller command (one test file rather than the suite; no watch mode or server that never exits).`
            : `${max} ms is the longest a command may run: run a smaller command (one test file rather than the suite; no watch mode or server that never exits).`,
      },
    },
  );
}

function outputFailure(limit: number, stdout: OutputTail, stderr: OutputTail): ToolFailure {
  return ToolFailure.invalidArguments(
    `The command printed more than ${limit} bytes (stdout ${stdout.total}, stderr ${stderr.total} when it was stopped) and was killed; the workspace is left as it was before the command.`,
    {
      message:
        'Redirect the output to a file (`cmd > out.log 2>&1`) and read the part you need, or keep only the end (`cmd 2>&1 | tail -200`).',
    },
  );
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The command was cancelled.', 'AbortError');
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortReason(signal);
}

function signalPid(pid: number): void {
  if (pid === 0) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The cwd must exist as a directory and, symlinks resolved, stay inside the working copy. */
async function checkCwd(root: string, cwd: string, asked: string | undefined): Promise<void> {
  if (cwd === '') return;
  const refuse = (why: string) =>
    ToolFailure.invalidArguments(`The working directory ${JSON.stringify(asked)} ${why}.`, {
      message: 'Give cwd as an existing directory relative to the workspace root, or omit it for the root.',
    });
  let real: string;
  try {
    real = await realpath(join(root, cwd));
  } catch {
    throw refuse('does not exist');
  }
  if (real !== root && !real.startsWith(root + sep)) throw refuse('leads out of the workspace (through a symlink)');
  if (!(await stat(real)).isDirectory()) throw refuse('is not a directory');
}

/** A sandbox uid opens the bind source itself, so every parent of the working copy must be searchable by others. */
async function checkReachable(root: string): Promise<void> {
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    const { mode } = await stat(dir);
    if ((mode & 0o001) === 0)
      throw new Error(
        `The sandbox cannot reach the working copy ${root}: ${dir} is not searchable by others (mode ${(mode & 0o777).toString(8)}). Keep working copies under directories with o+x (e.g. a 0711 parent).`,
      );
    if (dir === dirname(dir)) return;
  }
}

/**
 * Waits until the sandbox's PID 1 (bwrap's init) has exited. bwrap itself exits as soon as the
 * command does, while its init is still taking the namespace down (the kernel kills and waits for
 * every process in it before the init turns zombie), so a background process may outlive `close`
 * by a few milliseconds. Gone or zombie means nothing of the sandbox runs any more.
 */
async function namespaceGone(pid: number): Promise<void> {
  const deadline = performance.now() + KILL_GRACE_MS;
  for (let delay = 1; ; delay = Math.min(delay * 2, 20)) {
    let stat: string;
    try {
      stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return;
    }
    // "pid (comm) state ...": another process that got the pid after a reap is not ours.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (comm !== 'bwrap' || state === 'Z' || state === 'X') return;
    if (performance.now() > deadline) signalPid(pid);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** Waits (bounded) until no process of `uid` is left, so nothing races the next chown or outlives the uid's turn. */
async function processesGone(uid: number): Promise<void> {
  const deadline = performance.now() + KILL_GRACE_MS;
  while (performance.now() < deadline) {
    if ((await processesOf(uid)) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** How many processes run as `uid` (real uid), from /proc; zombies (exited, not yet reaped) do not count. */
export async function processesOf(uid: number): Promise<number> {
  let count = 0;
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = await readFile(`/proc/${name}/status`, 'utf8');
      if (new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status) && !/^State:\s+[ZX]/m.test(status)) count++;
    } catch {
      // Exited while we looked.
    }
  }
  return count;
}

/** Past this many entries one `find` process beats lstat calls from Node (~3× at 10,000 entries). */
const IN_PROCESS_CHOWN_ENTRIES = 256;

/**
 * Makes the root and everything under it owned by `uid`:`gid`, lchowning only what is not already
 * (a chown also bumps ctime). Small trees in process (spawning a program costs ~25 ms on a loaded
 * machine even for one file), bigger ones with `find -P … -exec chown -h`. Neither follows a symlink
 * the command left nor descends into one (readdir's own `recursive` follows links to directories: a
 * link to /etc would chown /etc). Nothing of the sandbox runs meanwhile to swap a directory for a link.
 */
async function chownTree(root: string, uid: number, gid: number): Promise<void> {
  const own = async (path: string) => {
    const info = await lstat(path);
    if (info.uid !== uid || info.gid !== gid) await lchown(path, uid, gid);
  };
  await own(root);
  let seen = 0;
  let dirs = [root];
  while (dirs.length > 0) {
    const next: string[] = [];
    for (const dir of dirs) {
      const entries = await readdir(dir, { withFileTypes: true });
      seen += entries.length;
      if (seen > IN_PROCESS_CHOWN_ENTRIES) {
        const find = await findProgram('find');
        if (find !== undefined) {
          const owner = `${uid}:${gid}`;
          const args = ['-P', root, '(', '!', '-uid', String(uid), '-o', '!', '-gid', String(gid), ')'];
          const result = await collect(find, [...args, '-exec', 'chown', '-h', owner, '{}', '+'], undefined);
          if (result.code !== 0) throw new Error(`chown of the working copy failed: ${result.stderr.trim()}`);
          return;
        }
      }
      for (let i = 0; i < entries.length; i += 64)
        await Promise.all(
          entries.slice(i, i + 64).map((entry) => {
            const path = join(dir, entry.name);
            if (entry.isDirectory()) next.push(path);
            return own(path);
          }),
        );
    }
    dirs = next;
  }
}

/**
 * Whether this process may read, search, chmod and remove files it does not own whatever their
 * mode (CAP_DAC_OVERRIDE and CAP_FOWNER effective), so a root worker needs no chown back.
 */
function rootBypassesPermissions(): boolean {
  try {
    const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (hex === undefined) return false;
    const caps = BigInt(`0x${hex}`);
    const DAC_OVERRIDE = 1n << 1n;
    const FOWNER = 1n << 3n;
    return (caps & DAC_OVERRIDE) !== 0n && (caps & FOWNER) !== 0n;
  } catch {
    return false;
  }
}

function collect(
  program: string,
  args: readonly string[],
  uid: number | undefined,
): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(program, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: '/usr/bin:/bin' },
      ...(uid === undefined ? {} : { uid, gid: uid }),
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    child.once('error', (error) => resolve({ code: -1, stderr: error.message }));
    child.once('close', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

async function findProgram(name: string): Promise<string | undefined> {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/bin', '/usr/sbin', '/sbin'];
  for (const dir of dirs) {
    if (dir === '') continue;
    try {
      await access(join(dir, name), fsConstants.X_OK);
      return join(dir, name);
    } catch {
      // Not here.
    }
  }
  return undefined;
}

function lstatKind(path: string): 'symlink' | 'dir' | undefined {
  try {
    const st = lstatSync(path);
    return st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : undefined;
  } catch {
    return undefined;
  }
}
