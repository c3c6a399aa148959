// The least a Node.js proxy does per call, for `bench/floor.ts`: node:http in, undici's Pool out (the stack the
// relay uses), the body read whole and sent on, the answer streamed back. No routing, auth, billing or logging.
import http from 'node:http';
import { Pool } from 'undici';

const upstream = new URL(process.env.UPSTREAM_URL);
// No cap on upstream connections, as Tollway's: a burst of streams opens as many as it has streams.
const pool = new Pool(upstream.origin, { connections: null });
const UPSTREAM_HEADERS = { 'content-type': 'application/json', authorization: 'Bearer floor-key' };

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    pool.request({ method: 'POST', path: req.url, headers: UPSTREAM_HEADERS, body: Buffer.concat(chunks) }).then(
      ({ statusCode, headers, body }) => {
        res.writeHead(statusCode, { 'content-type': headers['content-type'] ?? 'application/json' });
        body.on('data', (c) => res.write(c));
        body.on('end', () => res.end());
      },
      () => {
        res.writeHead(502);
        res.end();
      },
    );
  });
});
server.keepAliveTimeout = 72_000;
// As large an accept queue as the kernel allows, as Tollway's (LISTEN_BACKLOG).
server.listen({ port: Number(process.env.PORT), host: '127.0.0.1', backlog: 65_535 }, () =>
  console.log('floor proxy listening'),
);
// A clean exit on SIGTERM, so that --cpu-prof writes its profile.
process.on('SIGTERM', () => process.exit(0));
