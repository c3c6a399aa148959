import { z } from 'zod';
import { bool, float, int, json, oneOf, str, type OptionDef } from './option-def.js';

/**
 * The response cache: an answer served once is given again, without an upstream call, to the same request from
 * the same scope (token, user or group) within its TTL. Opt-in per model, group or token; see
 * docs/operating/response-cache.md.
 */

/** Whose answers a cached answer may be given to: the token that asked, any token of its user, or its group. */
export const RESPONSE_CACHE_SCOPES = ['token', 'user', 'group'] as const;
export type ResponseCacheScope = (typeof RESPONSE_CACHE_SCOPES)[number];

export const RESPONSE_CACHE_DEFAULT_TTL_SECONDS = 3600;
/** The longest TTL: 30 days. */
export const RESPONSE_CACHE_MAX_TTL_SECONDS = 30 * 24 * 3600;
export const RESPONSE_CACHE_DEFAULT_MAX_ENTRIES = 10_000;
export const RESPONSE_CACHE_MAX_ENTRIES_LIMIT = 1_000_000;
export const RESPONSE_CACHE_DEFAULT_SIMILARITY = 0.95;
export const RESPONSE_CACHE_DEFAULT_MAX_ANSWER_BYTES = 256 * 1024;
export const RESPONSE_CACHE_MAX_ANSWER_BYTES_LIMIT = 16 * 1024 * 1024;
/** The most names (models, groups) or token ids a rule list holds. */
const RULE_LIST_MAX = 1000;
const NAME_MAX = 200;

const names = z.array(z.string().min(1).max(NAME_MAX)).max(RULE_LIST_MAX);
const tokenIds = z.array(z.number().int().positive()).max(RULE_LIST_MAX);

export const responseCacheOptionDefs = {
  /** The cache is on: calls matched by a model, group or token rule below are looked up and stored. */
  'response_cache.enabled': bool(false),
  'response_cache.scope': oneOf('token', RESPONSE_CACHE_SCOPES),
  /** Models whose calls are cached ("*": every model). */
  'response_cache.models': json([], names),
  /** Groups whose calls are cached. */
  'response_cache.groups': json([], names),
  /** Tokens (by id) whose calls are cached. */
  'response_cache.tokens': json([], tokenIds),
  'response_cache.ttl_seconds': int(RESPONSE_CACHE_DEFAULT_TTL_SECONDS, 1, RESPONSE_CACHE_MAX_TTL_SECONDS),
  /** The share of the price a hit is billed at (0: free; 1: the full price of the cached usage). */
  'response_cache.hit_price_share': float(0, 0, 1),
  'response_cache.max_entries': int(RESPONSE_CACHE_DEFAULT_MAX_ENTRIES, 1, RESPONSE_CACHE_MAX_ENTRIES_LIMIT),
  /** Semantic mode: a miss is also looked up by the similarity of its prompt's embedding (docs: response-cache.md). */
  'response_cache.semantic_enabled': bool(false),
  /** The embeddings model (served by an OpenAI-format channel of the caller's group) that embeds prompts. */
  'response_cache.semantic_model': str(''),
  /** The least cosine similarity of two prompts for the stored answer of one to be given to the other. */
  'response_cache.semantic_threshold': float(RESPONSE_CACHE_DEFAULT_SIMILARITY, 0.5, 1),
  'response_cache.max_answer_bytes': int(
    RESPONSE_CACHE_DEFAULT_MAX_ANSWER_BYTES,
    1024,
    RESPONSE_CACHE_MAX_ANSWER_BYTES_LIMIT,
  ),
} satisfies Record<string, OptionDef>;

/** The response cache's option keys (the operation settings' access list and the console's section). */
export const RESPONSE_CACHE_OPTION_KEYS = Object.keys(
  responseCacheOptionDefs,
) as (keyof typeof responseCacheOptionDefs)[];

/** The header that tells a caller whether its answer came from the response cache. */
export const RESPONSE_CACHE_HEADER = 'x-tollway-cache';
