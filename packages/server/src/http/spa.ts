import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * Serves the built console: assets from dist, and index.html for every other page with the operator's title,
 * custom head HTML, global CSS and JS applied (options take effect on the next page load, no rebuild).
 */
export async function installConsole(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const dist = ctx.config.webDist;
  const indexFile = path.join(dist, 'index.html');
  const hasConsole = fs.existsSync(indexFile);
  if (hasConsole) await app.register(fastifyStatic, { root: dist, index: false, wildcard: false, maxAge: '1h', immutable: false });
  const template = hasConsole ? fs.readFileSync(indexFile, 'utf8') : '';

  app.setNotFoundHandler((req, reply) => {
    const url = req.url;
    if (url.startsWith('/api/') || url === '/api') return reply.status(404).send({ success: false, message: `no such API: ${req.method} ${url.split('?')[0]}` });
    if (url.startsWith('/v1') || url.startsWith('/v1beta') || url.startsWith('/pg/')) {
      return reply.status(404).send({ error: { message: `Invalid URL (${req.method} ${url.split('?')[0]})`, type: 'invalid_request_error', code: 'not_found' } });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply.status(404).send({ success: false, message: 'not found' });
    if (!hasConsole) return reply.status(404).type('text/plain').send('The console is not built: run `npm run build`.');
    const pathname = url.split('?')[0]!;
    if (!ctx.setup.isDone() && pathname !== '/setup') return reply.redirect('/setup');
    const o = ctx.options;
    const html = template
      .replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(o.get('SystemName'))}</title>`)
      .replace('</head>', `${o.get('custom_head_html')}${o.get('global_css') ? `<style>${o.get('global_css')}</style>` : ''}</head>`)
      .replace('</body>', `${o.get('global_js') ? `<script>${o.get('global_js')}</script>` : ''}</body>`);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
  });
}
