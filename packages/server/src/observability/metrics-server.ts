import http from 'node:http';
import type { Logger } from 'pino';
import { METRICS_CONTENT_TYPE, metricsText } from '../lib/metrics.js';
import { bearerMatches } from '../lib/bearer.js';

export interface MetricsServerOptions {
  port: number;
  host: string;
  /** When set, the scraper sends it as a bearer token here too. */
  token: string | undefined;
}

/**
 * GET /metrics on a port of its own (METRICS_PORT, on METRICS_HOST: loopback unless the operator widens it), so
 * the public port need not serve it. Nothing else is answered there.
 */
export async function startMetricsServer(opts: MetricsServerOptions, log: Logger): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found');
      return;
    }
    if (opts.token && !bearerMatches(req.headers.authorization, opts.token)) {
      res
        .writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' })
        .end('Unauthorized');
      return;
    }
    metricsText().then(
      (text) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' }).end(text),
      (err: unknown) => {
        log.warn({ err }, 'metrics: collecting failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  // Never holds the process open on its own.
  server.unref();
  return server;
}
