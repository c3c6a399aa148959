// Developer tool: where Tollway's allocations per call come from. Starts the mock and Tollway (the production
// bundle, --inspect on a free port), warms up, then samples every allocation (those the young and the old
// generation's collections freed included) over ALLOC_CALLS calls at ALLOC_CONNECTIONS and prints the bytes per call
// by allocating function, and by the outermost Tollway function on the stack.
// `node --import tsx bench/alloc-profile.ts [--stream]`; the raw profile goes to ALLOC_PROFILE_OUT
// (a .heapprofile file, which Chrome DevTools opens) when set.
import fs from 'node:fs';
import { Pool } from 'undici';
import { chatBody, startMock, startTollway, streamBody } from './targets.js';

const CALLS = Number(process.env.ALLOC_CALLS ?? 5000);
const WARMUP_CALLS = Number(process.env.ALLOC_WARMUP_CALLS ?? 5000);
const CONNECTIONS = Number(process.env.ALLOC_CONNECTIONS ?? 16);
/** Mean bytes between samples: small enough that a per-call site of a few hundred bytes is seen often. */
const SAMPLING_INTERVAL_BYTES = 512;
const TOP = Number(process.env.ALLOC_TOP ?? 25);
const INSPECTOR_URL = /Debugger listening on (ws:\/\/\S+)/;
/** Frames of the bundle are Tollway's own; node: and node_modules frames are the runtime's and libraries'. */
const OWN_CODE = /\/packages\/server\/dist\//;

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  callFrame: CallFrame;
  selfSize: number;
  children: ProfileNode[];
}

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
async function inspector(url: string) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let next = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.onmessage = (e) => {
    const m = JSON.parse(String(e.data)) as { id?: number; result?: unknown };
    if (m.id !== undefined) waiting.get(m.id)?.(m.result);
  };
  return {
    send<T>(method: string, params: object = {}): Promise<T> {
      const id = next++;
      ws.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve) => waiting.set(id, resolve as (r: unknown) => void));
    },
    close: () => ws.close(),
  };
}

async function load(pool: Pool, path: string, headers: Record<string, string>, body: string, calls: number) {
  let sent = 0;
  const worker = async () => {
    while (sent < calls) {
      sent++;
      const res = await pool.request({
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

const name = (f: CallFrame) =>
  `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules\/|dist\/)/, '$1')}:${f.lineNumber + 1}`;

function report(root: ProfileNode, calls: number): void {
  const bySelf = new Map<string, number>();
  const byOwner = new Map<string, number>();
  let total = 0;
  const walk = (n: ProfileNode, owner: string | undefined) => {
    const own = OWN_CODE.test(n.callFrame.url) ? name(n.callFrame) : owner;
    if (n.selfSize) {
      total += n.selfSize;
      const k = name(n.callFrame);
      bySelf.set(k, (bySelf.get(k) ?? 0) + n.selfSize);
      const o = own ?? '(outside Tollway code)';
      byOwner.set(o, (byOwner.get(o) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, own);
  };
  walk(root, undefined);
  const table = (title: string, m: Map<string, number>) => {
    console.log(`\n${title}`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, TOP))
      console.log(`${String(Math.round(v / calls)).padStart(8)} B/call  ${k}`);
  };
  console.log(`allocated ${Math.round(total / calls)} bytes per call (sampled, ${calls} calls)`);
  table('by allocating function', bySelf);
  table('by innermost Tollway function on the stack', byOwner);
}

async function main(): Promise<void> {
  const stream = process.argv.includes('--stream');
  const mock = await startMock();
  const tw = await startTollway(mock.url, ['--inspect=127.0.0.1:0']);
  const pool = new Pool(tw.target.url, { connections: CONNECTIONS });
  try {
    const url = INSPECTOR_URL.exec(tw.proc.output())?.[1];
    if (!url) throw new Error(`no inspector address in Tollway's output: ${tw.proc.output()}`);
    const body = stream ? streamBody : chatBody;
    await load(pool, tw.target.path, tw.target.headers, body, WARMUP_CALLS);
    const cdp = await inspector(url);
    await cdp.send('HeapProfiler.enable');
    await cdp.send('HeapProfiler.startSampling', {
      samplingInterval: SAMPLING_INTERVAL_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    await load(pool, tw.target.path, tw.target.headers, body, CALLS);
    const { profile } = await cdp.send<{ profile: { head: ProfileNode } }>('HeapProfiler.stopSampling');
    cdp.close();
    if (process.env.ALLOC_PROFILE_OUT) fs.writeFileSync(process.env.ALLOC_PROFILE_OUT, JSON.stringify(profile));
    report(profile.head, CALLS);
  } finally {
    await pool.close();
    await Promise.all([tw.proc.stop(), mock.proc.stop()]);
  }
}

await main();
