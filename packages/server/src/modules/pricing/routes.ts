import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { identify } from '../auth/guard.js';
import { registryOf } from '../model-registry/service.js';
import { pricingFor, pricingGroup, pricingModel, resetModelPricing } from './service.js';

/** The public pricing page and the root's reset of the pricing tables. */
export function pricingRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/pricing',
    level: 'public',
    summary:
      'Routable models with prices; the envelope also carries group_ratio and usable_group (logged out: default group)',
    tags: ['pricing'],
    response: z.array(pricingModel),
    raw: true,
    handler: async ({ ctx, req, reply }) => {
      const user = await identify(req, ctx);
      const page = pricingFor(ctx, pricingGroup(user), await registryOf(ctx).snapshot());
      return reply.send({ success: true, message: '', ...page });
    },
  });
  r.add({
    method: 'POST',
    url: '/api/option/rest_model_ratio',
    // Writes only operation options (ModelRatio, CompletionRatio, CacheRatio, ModelPrice): administrators' too.
    level: 'admin',
    summary: 'Reset ModelRatio, CompletionRatio, CacheRatio and ModelPrice to the shipped defaults',
    tags: ['pricing', 'options'],
    successMessage: 'model ratios reset',
    handler: async ({ ctx }) => {
      await resetModelPricing(ctx);
      return undefined;
    },
  });
}
