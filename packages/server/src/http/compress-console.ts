import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Below this many bytes an encoded body saves less than its header costs. */
const MIN_BYTES = 512;
/** Brotli at this quality compresses a few kilobytes in well under a millisecond. */
const BROTLI_QUALITY = 5;
/** The console's boot request sent compressed besides its pages (the built assets have their own copies). */
const COMPRESSED_API = new Set(['/api/status']);

type Encoding = 'br' | 'gzip';

/** The encoding to send: brotli when accepted, else gzip, else none (q=0 refuses one). */
function chosenEncoding(req: FastifyRequest): Encoding | undefined {
  const header = String(req.headers['accept-encoding'] ?? '').toLowerCase();
  const accepted = new Set(
    header
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, q]) => !/^\s*q=0(\.0*)?\s*$/.test(q ?? ''))
      .map(([name]) => name!.trim()),
  );
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return undefined;
}

/** The body encoded for the client, with Content-Encoding and Vary set; the body as is when small or not accepted. */
export function compressedBody(req: FastifyRequest, reply: FastifyReply, body: string | Buffer): string | Buffer {
  reply.header('vary', 'Accept-Encoding');
  const raw = typeof body === 'string' ? Buffer.from(body) : body;
  const encoding = raw.length >= MIN_BYTES ? chosenEncoding(req) : undefined;
  if (!encoding) return body;
  const encoded =
    encoding === 'br'
      ? zlib.brotliCompressSync(raw, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
          },
        })
      : zlib.gzipSync(raw);
  reply.header('content-encoding', encoding);
  reply.removeHeader('content-length');
  return encoded;
}

/** Sends the console's boot API answers (GET /api/status) compressed, as its pages and assets are. */
export function compressConsoleApi(app: FastifyInstance): void {
  app.addHook('onSend', (req, reply, payload, done) => {
    const path = req.url.split('?')[0]!;
    const plain = typeof payload === 'string' || Buffer.isBuffer(payload);
    if (req.method !== 'GET' || !COMPRESSED_API.has(path) || !plain || reply.hasHeader('content-encoding'))
      return done(null, payload);
    done(null, compressedBody(req, reply, payload));
  });
}
