// Tollway's resident memory after start and after N relayed calls (the production bundle, SQLite, a loopback
// mock): `node --import tsx bench/mem-probe.ts [bundle] [node binary]`. MEM_CALLS (default 1000) calls, 10 at once;
// then RSS once Tollway has sat idle MEM_IDLE_MS (default 25 s: two of its idle-memory windows and a few seconds).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { start } from './procs.js';
import { mb, rssOf } from './scale-measure.js';
import { startTollway } from './targets.js';

const CALLS = Number(process.env.MEM_CALLS ?? 1000);
const AT_ONCE = 10;
const SETTLE_MS = 3000;
const IDLE_MS = Number(process.env.MEM_IDLE_MS ?? 25_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const [bundle, node] = [process.argv[2], process.argv[3] ?? process.execPath];
const mock = await start(
  process.execPath,
  ['--import', 'tsx', path.join(import.meta.dirname, 'mock-server.ts')],
  {},
  /http:\/\/127\.0\.0\.1:\d+/,
);
const mockUrl = /http:\/\/127\.0\.0\.1:\d+/.exec(mock.output())![0];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-mem-'));
const tw = await startTollway(
  mockUrl,
  [],
  bundle,
  { SQLITE_PATH: path.join(dir, 'tollway.db'), DATA_DIR: dir, LOG_LEVEL: 'info' },
  node,
);
const pid = tw.proc.child.pid!;
await sleep(SETTLE_MS);
const started = rssOf(pid);
const client = new Agent({ connections: AT_ONCE });
const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }] });
let done = 0;
let ok = 0;
await Promise.all(
  Array.from({ length: AT_ONCE }, async () => {
    while (done < CALLS) {
      done++;
      const r = await request(tw.target.url + tw.target.path, {
        method: 'POST',
        dispatcher: client,
        headers: { 'content-type': 'application/json', ...tw.target.headers },
        body,
      });
      await r.body.text();
      if (r.statusCode === 200) ok++;
    }
  }),
);
await sleep(SETTLE_MS);
const after = rssOf(pid);
await sleep(IDLE_MS);
const idle = rssOf(pid);
console.log(
  `${path.basename(node === process.execPath ? 'node' : node)} ${process.env.MEM_LABEL ?? ''}: RSS after start ${mb(started)} MB, after ${CALLS} calls (${ok} ok) ${mb(after)} MB, after ${IDLE_MS / 1000} s idle ${mb(idle)} MB`,
);
await client.close();
await Promise.all([tw.proc.stop(), mock.stop()]);
