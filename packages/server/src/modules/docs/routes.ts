import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { ErrorCode } from '@tollway/shared';
import type { Router } from '../../http/route.js';
import { findDocsFolder, resolveDoc } from './folder.js';

/** The URL prefix the console's docs page reads the Markdown from (the page itself is /docs). */
export const DOCS_SOURCE_PREFIX = '/docs-src/';

/**
 * The documents change only with the version: a browser keeps one five minutes, then asks again with its ETag (a
 * 304 when unchanged).
 */
const DOC_CACHE_CONTROL = 'public, max-age=300';

/** The documentation's Markdown, served as it is from the docs/ folder the server shipped with. */
export function docsRoutes(r: Router): void {
  const folder = findDocsFolder();
  r.add({
    method: 'GET',
    url: `${DOCS_SOURCE_PREFIX}*`,
    level: 'public',
    summary: "A page of this version's documentation (Markdown from docs/)",
    tags: ['meta'],
    raw: true,
    audit: false,
    handler: async ({ req, reply }) => {
      const name = (req.params as { '*'?: string })['*'] ?? '';
      const file = folder === undefined ? undefined : resolveDoc(folder, name);
      if (file === undefined)
        return reply.status(404).send({ success: false, message: 'no such document', code: ErrorCode.NotFound });
      const text = await fs.readFile(file, 'utf8');
      const etag = `"${createHash('sha1').update(text).digest('base64url')}"`;
      reply.header('cache-control', DOC_CACHE_CONTROL).header('etag', etag);
      if (req.headers['if-none-match'] === etag) return reply.status(304).send();
      return reply.type('text/markdown; charset=utf-8').send(text);
    },
  });
}
