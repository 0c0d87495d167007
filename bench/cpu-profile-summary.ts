/**
 * What a V8 `.cpuprofile` (node --cpu-prof, one file per thread) says about some windows of time:
 * busy time, the functions with the most self time, and the inclusive time of a few named costs
 * (probes: a frame of theirs anywhere on the stack). Frames in the workflow bundle are named by the
 * bundle module they come from (webpack's `/***\/ "./path"` headers), so `$constructor` in zod's
 * core reads as such. Node-only.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export async function readCpuProfile(path: string): Promise<CpuProfile> {
  return JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
}

/** Which bundle module each line of the bundle starts: webpack's module headers, by line (0-based). */
export function bundleModules(code: string): (line: number) => string | undefined {
  const starts: { line: number; module: string }[] = [];
  const lines = code.split('\n');
  for (const [line, text] of lines.entries()) {
    const match = /^\/\*\*\*\/ "([^"]+)"/.exec(text);
    if (match) starts.push({ line, module: match[1]!.replace(/^\.\/(node_modules\/)?/, '') });
    // Webpack's own runtime (`__webpack_require__` and its helpers) follows the modules.
    else if (text.startsWith('/******/') && starts.at(-1)?.module !== 'webpack runtime')
      starts.push({ line, module: 'webpack runtime' });
  }
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found: string | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]!.line <= line) {
        found = starts[mid]!.module;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

/** A named cost: a sample counts when any frame on its stack matches. */
export interface Probe {
  readonly label: string;
  readonly matches: (frame: { readonly name: string; readonly where: string }) => boolean;
}

export interface ProfileSummary {
  /** Time covered by the windows, and the part of it not idle, ms. */
  readonly windowMs: number;
  readonly busyMs: number;
  /** Self time by function, most first. */
  readonly top: readonly { readonly name: string; readonly where: string; readonly ms: number }[];
  readonly probes: readonly { readonly label: string; readonly ms: number }[];
  /**
   * Module evaluation by bundle module: samples whose stack runs a module's top-level code (a frame
   * `__webpack_require__` called), each counted to the innermost such module. Most first.
   */
  readonly modules: readonly { readonly module: string; readonly ms: number }[];
}

const IDLE = '(idle)';

/**
 * Sums the samples taken inside `windows` (µs, on the profile's clock). `bundle` names the workflow
 * bundle's frames by module.
 */
export function summarizeProfile(
  profile: CpuProfile,
  windows: readonly { readonly from: number; readonly to: number }[],
  options: {
    readonly bundle?: { readonly path: string; readonly moduleAt: (line: number) => string | undefined };
    readonly probes?: readonly Probe[];
  } = {},
): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const bundleName = options.bundle && basename(options.bundle.path);
  const frame = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    if (bundleName && url.endsWith(bundleName))
      return { name, where: `bundle: ${options.bundle!.moduleAt(lineNumber) ?? '?'}` };
    const file = url.replace(/^file:\/\//, '');
    const short = file.includes('node_modules/')
      ? file.slice(file.lastIndexOf('node_modules/') + 'node_modules/'.length)
      : file.startsWith('node:')
        ? file
        : basename(file);
    return { name, where: short ? `${short}:${lineNumber + 1}` : '' };
  };
  const frames = new Map<number, { name: string; where: string }>();
  const frameOf = (id: number) => frames.get(id) ?? frames.set(id, frame(byId.get(id)!)).get(id)!;
  const self = new Map<string, { name: string; where: string; us: number }>();
  const probes = (options.probes ?? []).map((probe) => ({ probe, us: 0 }));
  const modules = new Map<string, number>();
  let windowUs = 0;
  let busyUs = 0;
  for (const w of windows)
    windowUs += Math.max(0, Math.min(w.to, profile.endTime) - Math.max(w.from, profile.startTime));
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    // A sample stands for the time until the next one (as Chrome's DevTools count it).
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (!windows.some((w) => t >= w.from && t < w.to)) continue;
    const id = profile.samples[i]!;
    const leaf = frameOf(id);
    if (leaf.name === IDLE) continue;
    busyUs += us;
    const key = `${leaf.name}\u0000${leaf.where}`;
    const row = self.get(key) ?? self.set(key, { ...leaf, us: 0 }).get(key)!;
    row.us += us;
    const stack: { name: string; where: string }[] = [];
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) stack.push(frameOf(n));
    for (const p of probes) if (stack.some(p.probe.matches)) p.us += us;
    const body = stack.findIndex((_, k) => stack[k + 1]?.name === '__webpack_require__');
    if (body >= 0) {
      const module = stack[body]!.where.replace(/^bundle: /, '');
      modules.set(module, (modules.get(module) ?? 0) + us);
    }
  }
  return {
    windowMs: windowUs / 1_000,
    busyMs: busyUs / 1_000,
    top: [...self.values()].sort((a, b) => b.us - a.us).map(({ name, where, us }) => ({ name, where, ms: us / 1_000 })),
    probes: probes.map(({ probe, us }) => ({ label: probe.label, ms: us / 1_000 })),
    modules: [...modules.entries()].sort((a, b) => b[1] - a[1]).map(([module, us]) => ({ module, ms: us / 1_000 })),
  };
}
