import path from 'node:path';
import type { FastifyStaticOptions } from '@fastify/static';

/** Vite names every file under assets/ by its content hash: a new build never reuses a name. */
const HASHED_DIR = 'assets';
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
/** Files kept under a fixed name (logo, theme boot script) may change with a release. */
export const FIXED_NAME_CACHE = 'public, max-age=3600';
/** The build's pre-compressed copies; they are chosen by Accept-Encoding, never asked for by name. */
const ENCODED_COPY = /\.(br|gz)$/;

/**
 * @fastify/static options for the built console: the brotli or gzip copy written at build time when the client
 * accepts it (Content-Encoding, Content-Length, ETag of that copy; identity otherwise), `Vary: Accept-Encoding` on
 * every file, a year's immutable caching for hashed assets. index.html is left to the page handler, which rewrites
 * it per request and sends it `no-cache`.
 */
export function consoleAssetOptions(root: string): FastifyStaticOptions {
  return {
    root,
    index: false,
    wildcard: false,
    preCompressed: true,
    cacheControl: false,
    allowedPath: (pathname) => pathname !== '/index.html' && !ENCODED_COPY.test(pathname),
    setHeaders(res, file) {
      const hashed = path.relative(root, file).split(path.sep)[0] === HASHED_DIR;
      res.setHeader('vary', 'Accept-Encoding');
      res.setHeader('cache-control', hashed ? IMMUTABLE_CACHE : FIXED_NAME_CACHE);
    },
  };
}
