// `npm run bench`: the mock upstream, Tollway (full auth, billing and logging on SQLite) and Portkey's gateway,
// each in its own process, measured in one run. Appends the results with the date to bench/RESULTS.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { freePort, start, type Proc } from './procs.js';
import { cpuPerRequest, sequentialLatency, throughput, type Target, type Throughput } from './measure.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 64;
const chatBody = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }] });
const streamBody = JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Say hello.' }] });
const procs: Proc[] = [];

async function startTollway(mockUrl: string): Promise<Target> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-bench-'));
  const port = await freePort();
  const env = { PORT: String(port), SQLITE_PATH: path.join(dir, 'tollway.db'), SESSION_SECRET: 'bench-secret-0123456789abcdef0123', LOG_LEVEL: 'info', WEB_DIST: '/nonexistent' };
  procs.push(await start(process.execPath, ['--import', 'tsx', path.join(ROOT, 'packages/server/src/main.ts')], env, /tollway started/));
  const base = `http://127.0.0.1:${port}`;
  const call = async (method: string, url: string, body: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(base + url, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const j = (await r.json()) as { success: boolean; message: string };
    if (!j.success) throw new Error(`${url}: ${j.message}`);
    return r;
  };
  await call('POST', '/api/setup', { username: 'root', password: 'bench-pass-1', confirmPassword: 'bench-pass-1' });
  const login = await call('POST', '/api/user/login', { username: 'root', password: 'bench-pass-1' });
  const auth = { cookie: login.headers.get('set-cookie')!.split(';')[0]!, 'new-api-user': '1' };
  await call('POST', '/api/channel/', { mode: 'single', channel: { name: 'mock', type: 1, key: 'bench-key', base_url: mockUrl, models: 'gpt-4o-mini', group: 'default' } }, auth);
  await call('PUT', '/api/user/', { id: 1, quota: 1_000_000_000_000 }, auth);
  const key = 'b'.repeat(48);
  const db = new Database(env.SQLITE_PATH);
  db.prepare("INSERT INTO tokens (user_id, key, status, name, created_time, expired_time, remain_quota, unlimited_quota, model_limits, allow_ips, \"group\") VALUES (1, ?, 1, 'bench', 0, -1, 0, 1, '', '', '')").run(key);
  db.close();
  return { name: 'Tollway', url: base, path: '/v1/chat/completions', headers: { authorization: `Bearer sk-${key}` } };
}

const anthropicBody = JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello.' }] });

/** The same Tollway, called with Anthropic's API: converted to the OpenAI upstream and back. */
const anthropicTarget = (t: Target): Target => ({
  name: 'Tollway, Anthropic in → OpenAI upstream',
  url: t.url,
  path: '/v1/messages',
  headers: { 'x-api-key': t.headers.authorization!.slice(7), 'anthropic-version': '2023-06-01' },
});

async function startPortkey(mockUrl: string): Promise<Target> {
  const port = await freePort();
  const bin = path.join(ROOT, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  procs.push(await start(process.execPath, [bin, `--port=${port}`, '--headless'], {}, /Ready for connections/));
  return {
    name: 'Portkey gateway',
    url: `http://127.0.0.1:${port}`,
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer bench-key', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${mockUrl}/v1` },
  };
}

const fmt = (n: number, d = 0) => n.toFixed(d);
const signed = (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(1)}`;

async function main() {
  const mock = await start(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/mock-server.ts')], {}, /http:\/\/127\.0\.0\.1:\d+/);
  procs.push(mock);
  const mockUrl = /http:\/\/127\.0\.0\.1:\d+/.exec(mock.output())![0];
  const direct: Target = { name: 'Direct to mock', url: mockUrl, path: '/v1/chat/completions', headers: { authorization: 'Bearer bench-key' } };
  const tollway = await startTollway(mockUrl);
  const portkey = await startPortkey(mockUrl);
  const converted = anthropicTarget(tollway);
  const targets = [direct, tollway, converted, portkey];
  const tollwayPid = procs[1]!.child.pid!;

  // Latency first, on idle gateways (the throughput runs leave a writer backlog behind), after a warm-up.
  for (const t of [direct, tollway]) await sequentialLatency(t, chatBody, 500, false);
  const lat = new Map<string, { p50: number; p90: number }>();
  const ttfb = new Map<string, { p50: number; p90: number }>();
  for (const t of [direct, tollway]) {
    lat.set(t.name, await sequentialLatency(t, chatBody, 2000, false));
    ttfb.set(t.name, await sequentialLatency(t, streamBody, 1000, true));
  }
  // Warm-up (JIT, connection pools, caches).
  for (const t of targets) await throughput(t, t === converted ? anthropicBody : chatBody, 16, 2);
  const tp = new Map<string, Throughput>();
  for (const t of targets) {
    tp.set(t.name, await throughput(t, t === converted ? anthropicBody : chatBody, CONNECTIONS, SECONDS));
    console.log(`${t.name}: ${fmt(tp.get(t.name)!.rps)} req/s at ${CONNECTIONS} connections`);
  }
  const cpuPass = await cpuPerRequest(tollway, chatBody, tollwayPid, 16, SECONDS);
  const cpuConv = await cpuPerRequest(converted, anthropicBody, tollwayPid, 16, SECONDS);
  const tw = tp.get('Tollway')!;
  const pk = tp.get('Portkey gateway')!;
  const dm = tp.get('Direct to mock')!;
  const addedP50 = lat.get('Tollway')!.p50 - lat.get('Direct to mock')!.p50;
  const addedTtfb = ttfb.get('Tollway')!.p50 - ttfb.get('Direct to mock')!.p50;
  const date = new Date().toISOString().slice(0, 10);
  const cpu = `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}`;
  const report = [
    `## ${date} — gateway core (OpenAI chat, non-streamed and streamed)`,
    '',
    `Machine: ${cpu}, Node ${process.version}. Mock, Tollway, Portkey and the load generator (autocannon) run as separate processes on the same machine; ${SECONDS} s per throughput run after a warm-up.`,
    '',
    `| Target | req/s at ${CONNECTIONS} conns | p50 ms | p99 ms | errors / non-2xx |`,
    '|---|---|---|---|---|',
    ...targets.map((t) => {
      const r = tp.get(t.name)!;
      return `| ${t.name} | ${fmt(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} / ${r.non2xx} |`;
    }),
    '',
    `| Ratio | Value | Target |`,
    '|---|---|---|',
    `| Tollway ÷ Portkey throughput | ${fmt(tw.rps / pk.rps, 2)}× | ≥ 5× |`,
    `| Tollway ÷ direct throughput | ${fmt(tw.rps / dm.rps, 2)} | — |`,
    `| Added p50 latency, 1 connection (${fmt(lat.get('Tollway')!.p50, 3)} − ${fmt(lat.get('Direct to mock')!.p50, 3)} ms) | ${fmt(addedP50, 3)} ms | ≤ 0.5 ms |`,
    `| CPU per request, Anthropic in → OpenAI upstream vs pass-through (${fmt(cpuConv.cpuMs, 3)} vs ${fmt(cpuPass.cpuMs, 3)} ms) | ${signed((cpuConv.cpuMs / cpuPass.cpuMs - 1) * 100)}% | ≤ +20% |`,
    `| Added time to first byte, streamed, 1 connection (${fmt(ttfb.get('Tollway')!.p50, 3)} − ${fmt(ttfb.get('Direct to mock')!.p50, 3)} ms) | ${fmt(addedTtfb, 3)} ms | ≤ 1 ms |`,
    '',
  ].join('\n');
  console.log(`\n${report}`);
  const file = path.join(ROOT, 'bench/RESULTS.md');
  const head = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmark results\n\nProduced by `npm run bench`; newest first.\n\n';
  const [title, ...rest] = head.split('\n\n');
  fs.writeFileSync(file, `${title}\n\n${rest[0] ?? ''}\n\n${report}\n${rest.slice(1).join('\n\n')}`.replace(/\n{3,}/g, '\n\n'));
}

try {
  await main();
} finally {
  await Promise.all(procs.map((p) => p.stop()));
}
