// `node --import tsx bench/floor.ts [seconds]`: where the relay stands against the floor of any Node.js proxy. A
// bare proxy (bench/node-floor-proxy.mjs: node:http in, undici out, nothing else) is measured in one run against
// Debian's nginx (one worker), Tollway and the direct mock: if even the bare proxy cannot reach a goal (½ of nginx's
// throughput, +0.25 ms added p50), no work Tollway drops can reach it in one Node.js process.
import { addedLatency, type Target } from './measure.js';
import { alternatingRatio, nginxProxyConfig, RATIO_ROUNDS } from './nginx.js';
import { freePort } from './procs.js';
import { chatBody, startFloorProxy, startMock, startTollway } from './targets.js';
import { startNginx } from '../packages/server/test/support/nginx.js';

const CONNECTIONS = 64;
const SECONDS = Number(process.argv[2] ?? 8);
const LATENCY_ROUNDS = 5;
const LATENCY_CALLS = 1000;
const HEADERS = { authorization: 'Bearer bench-key' };
const PATH = '/v1/chat/completions';

const mock = await startMock();
const tollway = await startTollway(mock.url);
const { target: floor, proc: floorProc } = await startFloorProxy(mock.url);
const nginxPort = await freePort();
const nginx = await startNginx((dir) => nginxProxyConfig(dir, nginxPort, new URL(mock.url), 1), nginxPort);
const ngx: Target = { name: 'nginx proxy_pass', url: nginx.url, path: PATH, headers: HEADERS };
const direct: Target = { name: 'direct to mock', url: mock.url, path: PATH, headers: HEADERS };
try {
  const floorOverNginx = await alternatingRatio(floor, ngx, chatBody, CONNECTIONS, SECONDS);
  const tollwayOverFloor = await alternatingRatio(tollway.target, floor, chatBody, CONNECTIONS, SECONDS);
  const floorLatency = await addedLatency(floor, direct, chatBody, false, LATENCY_ROUNDS, LATENCY_CALLS);
  const tollwayLatency = await addedLatency(tollway.target, direct, chatBody, false, LATENCY_ROUNDS, LATENCY_CALLS);
  const fmt = (n: number, d: number) => n.toFixed(d);
  const rounds = `median of ${RATIO_ROUNDS} alternating rounds of ${SECONDS} s at ${CONNECTIONS} conns`;
  console.log(
    [
      '| Measure | Value |',
      '| --- | --- |',
      `| bare Node.js proxy ÷ nginx \`proxy_pass\`, one worker (${rounds}; ${fmt(floorOverNginx.rps[0], 0)} vs ${fmt(floorOverNginx.rps[1], 0)} req/s) | ${fmt(floorOverNginx.ratio, 2)} |`,
      `| Tollway ÷ bare Node.js proxy (${rounds}; ${fmt(tollwayOverFloor.rps[0], 0)} vs ${fmt(tollwayOverFloor.rps[1], 0)} req/s) | ${fmt(tollwayOverFloor.ratio, 2)} |`,
      `| added p50 at one connection, bare Node.js proxy (median of ${LATENCY_ROUNDS} rounds × ${LATENCY_CALLS} calls) | +${fmt(floorLatency.added, 3)} ms |`,
      `| added p50 at one connection, Tollway (same) | +${fmt(tollwayLatency.added, 3)} ms |`,
    ].join('\n'),
  );
} finally {
  await nginx.stop();
  await floorProc.stop();
  await tollway.proc.stop();
  await mock.proc.stop();
}
