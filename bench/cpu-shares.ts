// Where a load's CPU goes on the bench machine: CPU time per request of each process group (Tollway, PostgreSQL's
// backends, Redis, the mock, this load generator) and of the whole machine, read from /proc during one throughput run.
import fs from 'node:fs';
import { processCpuSeconds, throughput, type Target } from './measure.js';

/** Linux accounts CPU time in clock ticks of 10 ms (USER_HZ 100). */
const MS_PER_TICK = 10;
/** Fields of /proc/stat's cpu line not spent working: idle and iowait. */
const IDLE_FIELDS = [3, 4];

/** A named group of processes: fixed pids, or every process whose command name matches. */
export type ProcessGroup = { name: string; pids: number[] } | { name: string; command: RegExp };

/** The CPU a process has used, or undefined once it is gone. */
function processMs(pid: number): number | undefined {
  try {
    return processCpuSeconds(pid) * 1000;
  } catch {
    return undefined;
  }
}

function pidsByCommand(command: RegExp): number[] {
  const pids: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (command.test(fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim())) pids.push(Number(d));
    } catch {
      // exited while listed
    }
  }
  return pids;
}

function machineBusyMs(): number {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = IDLE_FIELDS.reduce((s, i) => s + fields[i]!, 0);
  return (fields.reduce((a, b) => a + b, 0) - idle) * MS_PER_TICK;
}

export interface CpuShares {
  rps: number;
  /** µs of CPU per request by group name, and `machine` for every core's busy time. */
  perRequestUs: Record<string, number>;
}

/** One throughput run of `seconds` at `connections`, with each group's CPU per request over it. */
export async function cpuShares(
  t: Target,
  body: string,
  connections: number,
  seconds: number,
  groups: ProcessGroup[],
): Promise<CpuShares> {
  // Processes looked up by name are listed once, before the run (PostgreSQL's backends are the pool's, already open).
  const pidsOf = groups.map((g) => ('pids' in g ? g.pids : pidsByCommand(g.command)));
  const before = pidsOf.map((pids) => pids.map(processMs));
  const busyBefore = machineBusyMs();
  const r = await throughput(t, body, connections, seconds);
  const busyAfter = machineBusyMs();
  const requests = r.rps * seconds;
  const perRequestUs: Record<string, number> = {};
  groups.forEach((g, i) => {
    // A process that ended during the run (a database backend closed) is left out: its last figure is unknown.
    const used = pidsOf[i]!.reduce((sum, pid, j) => {
      const [from, to] = [before[i]![j], processMs(pid)];
      return from === undefined || to === undefined ? sum : sum + to - from;
    }, 0);
    perRequestUs[g.name] = (used * 1000) / requests;
  });
  perRequestUs.machine = ((busyAfter - busyBefore) * 1000) / requests;
  return { rps: r.rps, perRequestUs };
}
