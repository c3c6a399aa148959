// Reads a V8 .cpuprofile (node --cpu-prof) and lists functions by self time: where a request's CPU goes.

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
    const f = byId.get(id)!.callFrame;
    const where = f.url ? `${f.url.replace(/^.*\/(node_modules|packages)\//, '$1/')}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'} ${where}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([k, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}% ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
}
