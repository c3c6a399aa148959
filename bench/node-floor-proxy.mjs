// The least a Node.js proxy does per call, for `bench/floor.ts`: node:http in, undici's Pool out (the stack the
// relay uses), the body read whole and sent on, the answer streamed back. No routing, auth, billing or logging.
import http from 'node:http';
import { Pool } from 'undici';

const upstream = new URL(process.env.UPSTREAM_URL);
const pool = new Pool(upstream.origin, { connections: 512 });
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
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('floor proxy listening'));
