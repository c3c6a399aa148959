import type { ResponseCacheScope } from '@tollway/shared';
import type { OptionsService } from '../../core/options/service.js';

/** The response cache's settings, read once per change of any option (response_cache.*). */
export interface CacheRules {
  enabled: boolean;
  scope: ResponseCacheScope;
  /** Every model's calls are cached ("*" in the models list). */
  allModels: boolean;
  models: ReadonlySet<string>;
  groups: ReadonlySet<string>;
  tokens: ReadonlySet<number>;
  ttlMs: number;
  /** The share of the price a hit is billed at, 0..1. */
  hitShare: number;
  maxEntries: number;
  maxAnswerBytes: number;
  /** Semantic mode: the embeddings model prompts are compared with (undefined: exact matches only). */
  semanticModel: string | undefined;
  /** The least cosine similarity of a semantic hit. */
  similarity: number;
}

export function readCacheRules(o: OptionsService): CacheRules {
  const models = o.json<string[]>('response_cache.models');
  return {
    enabled: o.bool('response_cache.enabled'),
    scope: o.get('response_cache.scope') as ResponseCacheScope,
    allModels: models.includes('*'),
    models: new Set(models),
    groups: new Set(o.json<string[]>('response_cache.groups')),
    tokens: new Set(o.json<number[]>('response_cache.tokens')),
    ttlMs: o.num('response_cache.ttl_seconds') * 1000,
    hitShare: o.num('response_cache.hit_price_share'),
    maxEntries: o.num('response_cache.max_entries'),
    maxAnswerBytes: o.num('response_cache.max_answer_bytes'),
    semanticModel:
      (o.bool('response_cache.semantic_enabled') && o.get('response_cache.semantic_model').trim()) || undefined,
    similarity: o.num('response_cache.semantic_threshold'),
  };
}

/** Whether the operator opted this call in: its model, its group or its token is listed. */
export function optedIn(r: CacheRules, model: string, group: string, tokenId: number): boolean {
  return r.allModels || r.models.has(model) || r.groups.has(group) || r.tokens.has(tokenId);
}

/** The scope a cached answer stays in: the token, the user or the group of the call. */
export function scopeOf(r: CacheRules, userId: number, tokenId: number, group: string): string {
  if (r.scope === 'user') return `u:${userId}`;
  if (r.scope === 'group') return `g:${group}`;
  return `t:${tokenId}`;
}
