import type { Router } from '../../http/route.js';
import { fetchAnswer, fetchBody, ratioConfigAnswer, syncableChannel } from './schema.js';
import { exposedRatioConfig, fetchUpstreamPrices, syncableChannels } from './service.js';
import { z } from 'zod';

/** Price sync (new-api's): this gateway's prices for other gateways, and root's comparison with upstreams'. */
export function ratioSyncRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/ratio_config',
    level: 'public',
    rateLimit: 'critical',
    summary:
      "This gateway's model_ratio, completion_ratio, cache_ratio, create_cache_ratio and model_price, for other gateways' price sync; only while ExposeRatioEnabled is on",
    tags: ['pricing'],
    response: ratioConfigAnswer,
    handler: ({ ctx }) => exposedRatioConfig(ctx.options),
  });
  r.add({
    method: 'GET',
    url: '/api/ratio_sync/channels',
    level: 'root',
    summary:
      "Channels usable as price sources (every channel with a base URL, no keys), then new-api's official preset",
    tags: ['pricing'],
    response: z.array(syncableChannel),
    handler: ({ ctx }) => syncableChannels(ctx),
  });
  r.add({
    method: 'POST',
    url: '/api/ratio_sync/fetch',
    level: 'root',
    summary:
      "Fetches upstreams' prices (`upstreams`: base_url + endpoint, default /api/pricing, or `channel_ids`) through the outbound guard and answers the per-model differences from this gateway's; saves nothing",
    tags: ['pricing'],
    body: fetchBody,
    response: fetchAnswer,
    handler: ({ ctx, body }) => fetchUpstreamPrices(ctx, body),
  });
}
