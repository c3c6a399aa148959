// `npm run bench` row for the practical ceiling of any proxy: Debian's nginx with `proxy_pass` and upstream
// keep-alive in front of the same mock, against Tollway at the same connection count, alternating in rounds.
import { freePort } from './procs.js';
import { throughput, type Target } from './measure.js';
import { chatBody } from './targets.js';
import { startNginx } from '../packages/server/test/support/nginx.js';

export const RATIO_ROUNDS = 3;
/** Idle upstream connections each nginx worker keeps open (enough for every client connection). */
const UPSTREAM_KEEPALIVE = 128;

/** nginx as a plain reverse proxy: `workers` processes, HTTP/1.1 keep-alive to the mock, no logging, no buffering. */
export function nginxProxyConfig(dir: string, port: number, mock: URL, workers: number | 'auto'): string {
  return `worker_processes ${workers};
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t}_temp;`).join('\n')}
  upstream mock { server ${mock.host}; keepalive ${UPSTREAM_KEEPALIVE}; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://mock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
`;
}

/** The median over RATIO_ROUNDS alternating rounds of `a`'s throughput over `b`'s, with that round's req/s. */
export async function alternatingRatio(
  a: Target,
  b: Target,
  body: string,
  connections: number,
  seconds: number,
): Promise<{ ratio: number; rps: [number, number] }> {
  for (const t of [a, b]) await throughput(t, body, 16, 2);
  const rounds: [number, number][] = [];
  for (let r = 0; r < RATIO_ROUNDS; r++) {
    const x = await throughput(a, body, connections, seconds);
    const y = await throughput(b, body, connections, seconds);
    if (x.errors + x.non2xx + y.errors + y.non2xx > 0)
      throw new Error(`${a.name} / ${b.name}: errors or non-2xx answers`);
    rounds.push([x.rps, y.rps]);
  }
  rounds.sort((x, y) => x[0] / x[1] - y[0] / y[1]);
  const mid = rounds[Math.floor(rounds.length / 2)]!;
  return { ratio: mid[0] / mid[1], rps: mid };
}

/** Tollway ÷ nginx at `connections`: nginx with one worker (one process, as Tollway is) and with one per core. */
export async function nginxRows(
  mockUrl: string,
  tollway: Target,
  connections: number,
  seconds: number,
): Promise<string[]> {
  const rows: string[] = [];
  for (const workers of [1, 'auto'] as const) {
    const port = await freePort();
    const nginx = await startNginx((dir) => nginxProxyConfig(dir, port, new URL(mockUrl), workers), port);
    try {
      const target: Target = {
        name: 'nginx proxy_pass',
        url: nginx.url,
        path: '/v1/chat/completions',
        headers: { authorization: 'Bearer bench-key' },
      };
      const r = await alternatingRatio(tollway, target, chatBody, connections, seconds);
      const which = workers === 1 ? 'one worker process' : 'a worker per core';
      rows.push(
        `| Tollway ÷ nginx \`proxy_pass\` (keep-alive to the mock, ${which}) at ${connections} conns (median of ${RATIO_ROUNDS} alternating rounds of ${seconds} s; ${r.rps[0].toFixed(0)} vs ${r.rps[1].toFixed(0)} req/s) | ${r.ratio.toFixed(2)} | ${workers === 1 ? '≥ 0.5' : '—'} |`,
      );
    } finally {
      await nginx.stop();
    }
  }
  return rows;
}
