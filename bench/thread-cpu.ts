// CPU per call of each thread of Tollway's process (or the bare Node.js proxy's with `--floor`), user and kernel
// apart, and the bytes each writes (sockets and files) in how many write calls, at 64 connections:
// `node --import tsx bench/thread-cpu.ts [--floor] [rounds] [seconds]`. Reads /proc/<pid>/task/<tid>/stat and io
// before and after each round (Linux only); where a call's CPU and writes go between the event loop, the SQLite
// log worker, the checkpointer, libuv's pool (the journal's fsync) and V8's helpers (GC, compiler).
import fs from 'node:fs';
import { throughput } from './measure.js';
import { chatBody, startFloorProxy, startMock, startTollway } from './targets.js';

const CONNECTIONS = 64;
/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const rounds = Number(args[0] ?? 2);
const seconds = Number(args[1] ?? 5);
const floor = process.argv.includes('--floor');

interface ThreadCpu {
  name: string;
  user: number;
  system: number;
  /** Bytes passed to write calls (sockets and files) and the number of those calls, so far. */
  written: number;
  writes: number;
}

/** Bytes passed to write calls, and the number of write calls, in /proc/<pid>/task/<tid>/io. */
const WRITTEN = /^wchar: (\d+)$/m;
const WRITE_CALLS = /^syscw: (\d+)$/m;
const ioField = (io: string, field: RegExp): number => Number(field.exec(io)?.[1] ?? 0);

/** Each thread's CPU ticks so far, by thread id. */
function threads(pid: number): Map<string, ThreadCpu> {
  const out = new Map<string, ThreadCpu>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    let io: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      io = fs.readFileSync(`/proc/${pid}/task/${tid}/io`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, {
      name,
      user: Number(fields[11]),
      system: Number(fields[12]),
      written: ioField(io, WRITTEN),
      writes: ioField(io, WRITE_CALLS),
    });
  }
  return out;
}

const mock = await startMock();
const target = floor ? await startFloorProxy(mock.url) : await startTollway(mock.url);
const pid = target.proc.child.pid!;
try {
  await throughput(target.target, chatBody, CONNECTIONS, 3);
  for (let r = 0; r < rounds; r++) {
    const before = threads(pid);
    const { rps } = await throughput(target.target, chatBody, CONNECTIONS, seconds);
    const after = threads(pid);
    const calls = rps * seconds;
    const usPerTick = 1e6 / TICKS_PER_SECOND / calls;
    const rows = [...after]
      .map(([tid, a]) => {
        const b = before.get(tid) ?? { name: a.name, user: 0, system: 0, written: 0, writes: 0 };
        return {
          tid,
          name: a.name,
          user: (a.user - b.user) * usPerTick,
          system: (a.system - b.system) * usPerTick,
          written: (a.written - b.written) / calls,
          writes: (a.writes - b.writes) / calls,
        };
      })
      .filter((t) => t.user + t.system > 0 || t.writes > 0)
      .sort((x, y) => y.user + y.system - (x.user + x.system));
    const total = rows.reduce((n, t) => n + t.user + t.system, 0);
    console.log(
      `${floor ? 'bare proxy' : 'Tollway'}, round ${r + 1}: ${rps.toFixed(0)} calls/s, ${total.toFixed(1)} µs a call`,
    );
    for (const t of rows)
      console.log(
        `  ${t.name.padEnd(16)} ${t.tid.padStart(8)}  user ${t.user.toFixed(1)} µs  kernel ${t.system.toFixed(1)} µs  ` +
          `writes ${t.written.toFixed(0)} B in ${t.writes.toFixed(2)} calls`,
      );
  }
} finally {
  await target.proc.stop();
  await mock.proc.stop();
}
