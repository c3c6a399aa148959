// Reads a V8 .cpuprofile (node --cpu-prof) and lists functions by self time: where a request's CPU goes.
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A profile node as the tables name it: function name, and its file (below node_modules or packages) and line. */
function frameKey(n: ProfileNode): string {
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\/(node_modules|packages)\//, '$1/')}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`;
}

/**
 * The `limit` functions with the most self time, as "share% ms name file:line" lines, counting only samples
 * taken after `skipMs` from the profile's start (start-up and warm-up left out).
 */
export function topSelfTime(profile: CpuProfile, limit: number, skipMs = 0): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  let at = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (at < skipMs * 1000) return;
    const key = frameKey(byId.get(id)!);
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([k, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}% ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
}

/**
 * Prints the top self-time lines of the main thread's profile in `dir`: the largest .cpuprofile there (tsx's loader
 * thread writes one too).
 */
export function printLargestProfile(dir: string, limit: number, skipMs: number): void {
  const file = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
    .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
  if (!file) return;
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  console.log('Self time:');
  for (const line of topSelfTime(profile, limit, skipMs)) console.log(line);
  console.log('Inclusive time:');
  for (const line of topInclusiveTime(profile, limit, skipMs)) console.log(line);
}

/**
 * The `limit` functions with the most inclusive time (their own and their callees', each sample counted once per
 * function however deep it recurs), as "share% ms name file:line" lines, after `skipMs`; idle and (program)
 * samples are left out of the total so the shares are of the work done.
 */
function topInclusiveTime(
  profile: CpuProfile & { nodes: (ProfileNode & { children?: number[] })[] },
  limit: number,
  skipMs = 0,
): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const incl = new Map<string, number>();
  let total = 0;
  let at = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (at < skipMs * 1000) return;
    const name = byId.get(id)!.callFrame.functionName;
    if (name === '(idle)' || name === '(program)') return;
    total += dt;
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const k = frameKey(byId.get(n)!);
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + dt);
    }
  });
  return [...incl.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([k, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}% ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
}
