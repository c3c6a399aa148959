import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { AuthUser } from '../core/auth-user.js';
import { ErrorCode } from '@tollway/shared';
import { coded } from '../lib/errors.js';
import type { RouteDef, RouteHooks } from './route.js';
import { parseOr400 } from './validate.js';
import { keepRawBody } from './raw-body.js';

/*
 * One recipe per module (modules/<name>/): routes.ts → service.ts → store.ts.
 * - routes.ts declares routes (auth level, zod schemas from @tollway/shared, summary) and calls the service only;
 *   it never touches a store or the database.
 * - service.ts holds the rules and exports `<name>Of = perContext((ctx) => new XService(...))`: built on first
 *   use, once per AppContext. Routes, other services and the relay reach it by `<name>Of(ctx)`. The service's
 *   constructor takes only what it uses (a `Pick<AppContext, ...>` or its own deps interface), never the whole
 *   context.
 * - store.ts holds the SQL (listings through db/paged-select.ts, answered through db/paging.ts); view.ts maps
 *   rows to API shapes.
 * Only what start-up or the relay needs before any request (options, users, channels, setup, the routing cache,
 * account logs) is built in bootstrap.ts and set on AppContext. Relay services live on `ctx.relay`.
 */

const noAuthentication = () => Promise.reject(new Error('no authentication hooks were given'));

/** The hooks of a server of public routes only (a test's): nobody is authenticated, nothing is audited. */
const PUBLIC_ONLY: RouteHooks = {
  authenticate: noAuthentication,
  requireLevel: noAuthentication,
  auditTrailFor: () => undefined,
};

/** The caller each request's onRequest step identified (routes that are not public). */
const callers = new WeakMap<FastifyRequest, AuthUser>();

/**
 * Registers one declared route: rate limit and the caller's identity from the headers (before any body is read, so
 * an anonymous or signed-out caller costs no upload), then the level's role, then validation, then the handler in
 * the envelope; then the audit log entry of an administrator's action (or refused attempt). The app gives the
 * hooks that authenticate and audit (see RouteHooks); without them only public, unaudited routes can be registered.
 */
export function registerRoute(
  app: FastifyInstance,
  ctx: AppContext,
  def: RouteDef,
  hooks: RouteHooks = PUBLIC_ONLY,
): void {
  if (hooks === PUBLIC_ONLY && def.level !== 'public')
    throw new Error(`${def.method} ${def.url} is ${def.level}: registering it needs the authentication hooks`);
  const audit = hooks.auditTrailFor(def);
  app.route({
    method: def.method,
    url: def.url,
    ...(def.rawBody ? { preParsing: keepRawBody } : {}),
    onRequest: async (req, reply) => {
      try {
        if (def.rateLimit === 'critical') {
          const ok = await ctx.rateLimiter(
            `critical:${req.ip}`,
            ctx.config.criticalRateLimit,
            ctx.config.criticalRateLimitDuration,
          );
          if (!ok) throw coded(ErrorCode.TooManyRequests, 'too many requests, please try again later', undefined, 429);
        }
        if (def.level !== 'public') callers.set(req, await hooks.authenticate(req, ctx));
      } catch (err) {
        // The body the refused caller is still sending is not read: the connection ends with the answer.
        if (!req.raw.complete) reply.header('connection', 'close');
        throw err;
      }
    },
    handler: async (req, reply) => {
      let user: AuthUser | undefined;
      try {
        if (def.level !== 'public') {
          user = callers.get(req) ?? (await hooks.authenticate(req, ctx));
          await hooks.requireLevel(req, ctx, user, def.level);
        }
        const params = def.params ? parseOr400(def.params, req.params, 'params') : req.params;
        const query = def.query ? parseOr400(def.query, req.query, 'query') : req.query;
        const body = def.body ? parseOr400(def.body, req.body, 'body') : undefined;
        const data = await def.handler({ req, reply, query, body, params, user, ctx });
        await audit?.succeeded(ctx, req, reply, user, { params, query, body, data });
        if (def.raw) return reply;
        return { success: true, message: def.successMessage ?? '', data };
      } catch (err) {
        await audit?.failed(ctx, req, err, user);
        throw err;
      }
    },
  });
}
