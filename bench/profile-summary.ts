/**
 * Summarizes a V8 .cpuprofile (from `npm run bench -- --profile`): where the Pincer child spent its CPU time.
 *
 *   node dist/bench/profile-summary.js <file.cpuprofile> [--top N] [--focus substring ...] [--requests N]
 *
 * Prints self time by area (Pincer's own modules, each package, Node internals, GC, idle), the top functions by
 * self time, and inclusive time (the function and everything it called) of the top functions, as a share of the
 * non-idle time. --focus adds inclusive time of every function whose name or file contains the substring.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function shortFile(url: string): string {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + '/node_modules/'.length);
  const dist = path.indexOf('/dist/');
  if (dist >= 0) return path.slice(dist + '/dist/'.length);
  return path;
}

export function area(frame: CallFrame): string {
  const name = frame.functionName;
  if (name === '(idle)' || name === '(garbage collector)' || name === '(program)' || name === '(root)') return name;
  const url = frame.url;
  if (!url) return '(native / V8 builtins)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const dist = url.indexOf('/dist/');
  if (dist >= 0) {
    const parts = url.slice(dist + '/dist/'.length).split('/');
    return parts.slice(0, Math.min(parts.length - 1, 3)).join('/') || parts.join('/');
  }
  return url;
}

function key(frame: CallFrame): string {
  return `${frame.functionName || '(anonymous)'}  ${shortFile(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
}

/** `requests`, when known, adds the CPU cost per request (busy time ÷ requests) to each line. */
export function summarizeProfile(profile: CpuProfile, top = 25, focus: string[] = [], requests = 0): string {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  const focusTotals = new Map<string, number>(focus.map((f) => [f, 0]));
  let total = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000; // µs → ms
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    total += dt;
    if (node.callFrame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    const k = key(node.callFrame);
    self.set(k, (self.get(k) ?? 0) + dt);
    const a = area(node.callFrame);
    areas.set(a, (areas.get(a) ?? 0) + dt);
    const seen = new Set<string>();
    const focusSeen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      const fk = key(frame);
      if (!seen.has(fk)) {
        seen.add(fk);
        inclusive.set(fk, (inclusive.get(fk) ?? 0) + dt);
      }
      for (const f of focus) {
        if (!focusSeen.has(f) && (frame.functionName.includes(f) || frame.url.includes(f))) {
          focusSeen.add(f);
          focusTotals.set(f, focusTotals.get(f)! + dt);
        }
      }
    }
  }
  const busy = total - idle;
  const pct = (ms: number) => `${((ms / busy) * 100).toFixed(1).padStart(5)} %`;
  const ms = (v: number) => `${v.toFixed(0).padStart(7)} ms${requests ? `  ${((v * 1000) / requests).toFixed(1).padStart(6)} µs/req` : ''}`;
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((x, y) => y[1] - x[1]);
  const lines: string[] = [];
  lines.push(
    `profile: ${(total / 1000).toFixed(2)} s sampled, ${(busy / 1000).toFixed(2)} s busy (${((busy / total) * 100).toFixed(1)} %), ${profile.samples.length} samples` +
      (requests ? `, ${requests} requests → ${((busy * 1000) / requests).toFixed(0)} µs CPU per request` : ''),
  );
  lines.push('', 'self time by area (share of busy time):');
  for (const [name, v] of sorted(areas)) if (v / busy >= 0.003) lines.push(`  ${pct(v)} ${ms(v)}  ${name}`);
  lines.push('', `top ${top} functions by self time:`);
  for (const [name, v] of sorted(self).slice(0, top)) lines.push(`  ${pct(v)} ${ms(v)}  ${name}`);
  lines.push('', `top ${top} functions by inclusive time:`);
  for (const [name, v] of sorted(inclusive)
    .filter(([n]) => !n.startsWith('(root)') && !n.startsWith('(program)'))
    .slice(0, top))
    lines.push(`  ${pct(v)} ${ms(v)}  ${name}`);
  if (focus.length) {
    lines.push('', 'focus (inclusive time of frames whose name or file contains):');
    for (const [f, v] of focusTotals) lines.push(`  ${pct(v)} ${ms(v)}  ${f}`);
  }
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    options: { top: { type: 'string' }, focus: { type: 'string', multiple: true }, requests: { type: 'string' } },
    allowPositionals: true,
  });
  const file = positionals[0];
  if (!file) {
    process.stderr.write('usage: node dist/bench/profile-summary.js <file.cpuprofile> [--top N] [--focus substring ...]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(`${summarizeProfile(profile, Number(values.top ?? 25), values.focus ?? [], Number(values.requests ?? 0))}\n`);
}
