import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { authorize, identify } from '../modules/auth/guard.js';
import { ApiError } from './errors.js';
import type { RouteDef } from './route.js';
import { parseOr400 } from './validate.js';

/** Registers one declared route: rate limit, then authorisation, then validation, then the handler in the envelope. */
export function registerRoute(app: FastifyInstance, ctx: AppContext, def: RouteDef): void {
  app.route({
    method: def.method,
    url: def.url,
    handler: async (req, reply) => {
      if (def.rateLimit === 'critical') {
        const ok = await ctx.rateLimiter(`critical:${req.ip}`, ctx.config.criticalRateLimit, ctx.config.criticalRateLimitDuration);
        if (!ok) throw new ApiError('too many requests, please try again later', 429);
      }
      const user = def.level === 'public' ? undefined : await authorize(req, ctx, def.level);
      const params = def.params ? parseOr400(def.params, req.params, 'params') : req.params;
      const query = def.query ? parseOr400(def.query, req.query, 'query') : req.query;
      const body = def.body ? parseOr400(def.body, req.body, 'body') : undefined;
      const data = await def.handler({ req, reply, query, body, params, user, ctx });
      if (def.raw) return reply;
      return { success: true, message: def.successMessage ?? '', data };
    },
  });
}

/** For public routes that behave differently for a logged-in caller. */
export { identify };
