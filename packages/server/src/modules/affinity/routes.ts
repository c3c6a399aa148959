import { ErrorCode } from '@tollway/shared';
import { z } from 'zod';
import { coded } from '../../lib/errors.js';
import type { Router } from '../../http/route.js';
import { affinityCacheStats, clearAffinityCache } from './service.js';

/** Longest rule name, group or key fingerprint accepted in a query. */
const MAX_QUERY_TEXT = 200;
const text = z.string().trim().max(MAX_QUERY_TEXT);

/**
 * Channel affinity's routes as new-api has them: the pin cache's statistics and clearing (root, with the option
 * routes), one session's usage (administrators, with the logs); and each channel's prompt-cache hit ratio.
 */
export function affinityRoutes(r: Router): void {
  const tags = ['channels'];
  r.add({
    method: 'GET',
    url: '/api/option/channel_affinity_cache',
    level: 'root',
    summary:
      'Channel affinity cache statistics: sessions pinned (total, by rule name; unknown: keys of rules no longer ' +
      'set or without include_rule_name), the capacity of one node (0 with Redis) and the eviction algorithm',
    tags,
    handler: ({ ctx }) => affinityCacheStats(ctx.affinity),
  });
  r.add({
    method: 'DELETE',
    url: '/api/option/channel_affinity_cache',
    level: 'root',
    summary:
      'Clear the channel affinity cache: all=true every pin, or rule_name one rule (it must carry its name in its ' +
      'keys, include_rule_name); answers how many were deleted. Cleared sessions are routed afresh on their next call',
    tags,
    query: z.object({ all: z.enum(['true', 'false']).optional(), rule_name: text.optional() }),
    handler: async ({ ctx, query }) => {
      if (query.all === 'true') return { deleted: await clearAffinityCache(ctx.affinity, undefined) };
      if (!query.rule_name)
        throw coded(ErrorCode.FieldRequired, 'rule_name is required, or all=true to clear everything', {
          field: 'rule_name',
        });
      return { deleted: await clearAffinityCache(ctx.affinity, query.rule_name) };
    },
  });
  r.add({
    method: 'GET',
    url: '/api/log/channel_affinity_usage_cache',
    level: 'admin',
    summary:
      'Usage of one affinity session (rule_name, key_fp and using_group, as a log row names them) over its ' +
      "rule's TTL: calls, calls that read the provider's prompt cache (hit), token counts",
    tags,
    query: z.object({ rule_name: text.min(1), key_fp: text.min(1), using_group: text.optional() }),
    handler: ({ ctx, query }) => ctx.affinity.usage.stats(query.rule_name, query.using_group ?? '', query.key_fp),
  });
  r.add({
    method: 'GET',
    url: '/api/channel/prompt_cache',
    level: 'admin',
    summary:
      "Each channel's prompt tokens today (UTC) and the part the provider read from its prompt cache (hit_ratio): " +
      'the whole cluster with Redis, else this node',
    tags,
    handler: ({ ctx }) => ctx.affinity.promptCache.today(),
  });
}
