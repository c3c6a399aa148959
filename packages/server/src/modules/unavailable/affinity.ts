import { ErrorCode } from '@tollway/shared';
import { z } from 'zod';
import { coded } from '../../lib/errors.js';
import type { Router } from '../../http/route.js';

/** Longest rule name, group or key fingerprint accepted in a query. */
const MAX_QUERY_TEXT = 200;
const text = z.string().trim().max(MAX_QUERY_TEXT);

/**
 * new-api's channel affinity (a request's session key pinned to the channel that served it) does not exist here:
 * channels are chosen per call by priority and weight. Its cache reads as disabled and empty, and clearing it
 * deletes nothing; the inputs new-api requires are still required.
 */
export function affinityRoutes(r: Router): void {
  const tags = ['unavailable'];
  r.add({
    method: 'GET',
    url: '/api/option/channel_affinity_cache',
    level: 'root',
    summary: 'Channel affinity cache statistics: always disabled and empty (channel affinity is not available)',
    tags,
    handler: () => ({ enabled: false, total: 0, unknown: 0, by_rule_name: {}, cache_capacity: 0 }),
  });
  r.add({
    method: 'DELETE',
    url: '/api/option/channel_affinity_cache',
    level: 'root',
    summary: 'Clear the channel affinity cache (all=true, or one rule_name): nothing to delete, answers deleted 0',
    tags,
    query: z.object({ all: z.enum(['true', 'false']).optional(), rule_name: text.optional() }),
    audit: false,
    handler: ({ query }) => {
      if (query.all !== 'true' && !query.rule_name)
        throw coded(ErrorCode.FieldRequired, 'rule_name is required, or all=true to clear everything', {
          field: 'rule_name',
        });
      return { deleted: 0 };
    },
  });
  r.add({
    method: 'GET',
    url: '/api/log/channel_affinity_usage_cache',
    level: 'admin',
    summary:
      'Usage of one affinity key (rule_name, key_fp, using_group): always zero (channel affinity is not available)',
    tags,
    query: z.object({ rule_name: text.min(1), key_fp: text.min(1), using_group: text.optional() }),
    handler: ({ query }) => ({
      rule_name: query.rule_name,
      using_group: query.using_group ?? '',
      key_fp: query.key_fp,
      hit: 0,
      total: 0,
      window_seconds: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cached_tokens: 0,
      prompt_cache_hit_tokens: 0,
      last_seen_at: 0,
    }),
  });
}
