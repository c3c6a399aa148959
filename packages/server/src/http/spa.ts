import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { ErrorCode, isDocsPage } from '@tollway/shared';
import type { AppContext } from '../context.js';
import { newNonce, type SecurityPolicy } from './security-headers.js';
import { compressConsoleApi, compressedBody } from './compress-console.js';
import { consoleAssetOptions } from './static-assets.js';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

const SCRIPT_TAG = /<script\b/gi;

/**
 * Serves the built console: assets from dist (pre-compressed, see static-assets.ts), and index.html for every other page with the operator's title,
 * custom head HTML, global CSS and JS applied (options take effect on the next page load, no rebuild). The
 * operator's scripts (global JS, scripts in the custom head) carry a per-page nonce that the page's
 * Content-Security-Policy allows; no other inline script runs.
 */
export async function installConsole(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'config' | 'setup' | 'options'>,
  policy: SecurityPolicy,
): Promise<void> {
  const dist = ctx.config.webDist;
  const indexFile = path.join(dist, 'index.html');
  const hasConsole = fs.existsSync(indexFile);
  if (hasConsole) await app.register(fastifyStatic, consoleAssetOptions(dist));
  const template = hasConsole ? fs.readFileSync(indexFile, 'utf8') : '';
  compressConsoleApi(app);

  app.setNotFoundHandler((req, reply) => {
    const url = req.url;
    if (url.startsWith('/api/') || url === '/api') {
      const path = `${req.method} ${url.split('?')[0]}`;
      return reply
        .status(404)
        .send({ success: false, message: `no such API: ${path}`, code: ErrorCode.ApiNotFound, params: { path } });
    }
    if (url.startsWith('/v1') || url.startsWith('/v1beta') || url.startsWith('/pg/')) {
      return reply.status(404).send({
        error: {
          message: `Invalid URL (${req.method} ${url.split('?')[0]})`,
          type: 'invalid_request_error',
          code: 'not_found',
        },
      });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return reply.status(404).send({ success: false, message: 'not found', code: ErrorCode.NotFound });
    if (!hasConsole) return reply.status(404).type('text/plain').send('The console is not built: run `npm run build`.');
    const pathname = url.split('?')[0]!;
    if (!ctx.setup.isDone() && pathname !== '/setup' && !isDocsPage(pathname)) return reply.redirect('/setup');
    const o = ctx.options;
    const head = o.get('custom_head_html');
    const js = o.get('global_js');
    const nonce = js || /<script\b/i.test(head) ? newNonce() : undefined;
    const withNonce = (s: string) => (nonce ? s.replace(SCRIPT_TAG, `<script nonce="${nonce}"`) : s);
    const html = template
      .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(o.get('SystemName'))}</title>`)
      .replace(
        '</head>',
        () => `${withNonce(head)}${o.get('global_css') ? `<style>${o.get('global_css')}</style>` : ''}</head>`,
      )
      .replace('</body>', () => `${js ? withNonce(`<script>${js}</script>`) : ''}</body>`);
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', policy.header(nonce))
      .send(compressedBody(req, reply, html));
  });
}
