import { z } from 'zod';
import { ErrorCode } from './error-codes.js';
import { inputRule } from './input-rules.js';
import { bool, int, json, type OptionDef } from './option-def.js';

/**
 * Channel affinity: calls that share a session key (a prompt-cache key, a client's session id, a header, the token)
 * are sent to the channel and key that served the session before, so the provider's prompt cache is hit. The
 * settings are new-api's `channel_affinity_setting.*` keys, with its rule shape; Tollway reads all of them.
 */

/** Where a rule reads a call's session key. */
export const AFFINITY_KEY_SOURCE_TYPES = ['gjson', 'request_header', 'context_int', 'context_string'] as const;
export type AffinityKeySourceType = (typeof AFFINITY_KEY_SOURCE_TYPES)[number];

/** The caller facts a `context_int` source names (new-api's context keys): the token's and the user's id. */
export const AFFINITY_CONTEXT_INT_KEYS = ['token_id', 'id', 'user_id'] as const;
/** The caller facts a `context_string` source names: the token's name and key group, the user's name and group. */
export const AFFINITY_CONTEXT_STRING_KEYS = ['token_name', 'token_group', 'username', 'user_group', 'group'] as const;

/** The longest session key value used; a longer one is cut (the key is hashed, never stored as sent). */
export const AFFINITY_VALUE_MAX_CHARS = 512;
/** Regular expressions and names in rules: bounded, so a rule's match on a call stays cheap. */
const RULE_TEXT_MAX = 200;
const RULE_LIST_MAX = 20;
const RULES_MAX = 50;
const KEY_SOURCES_MAX = 8;
export const AFFINITY_DEFAULT_MAX_ENTRIES = 100_000;
export const AFFINITY_DEFAULT_TTL_SECONDS = 3600;
/** The most entries an operator may ask to keep on one node. */
export const AFFINITY_MAX_ENTRIES_LIMIT = 10_000_000;
/** The longest TTL a rule may set: a week. */
export const AFFINITY_MAX_TTL_SECONDS = 7 * 24 * 3600;

const compiles = (pattern: string): boolean => {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
};

const pattern = z
  .string()
  .max(RULE_TEXT_MAX)
  .refine(compiles, inputRule(ErrorCode.AffinityRegexInvalid, 'is not a valid regular expression'));

/** A field new-api's console may send as null where it does not apply: read as absent. */
const nullAsAbsent = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === null ? undefined : v), schema);

const keySource = z.object({
  type: z.enum(AFFINITY_KEY_SOURCE_TYPES),
  key: nullAsAbsent(z.string().max(RULE_TEXT_MAX).optional()),
  path: nullAsAbsent(z.string().max(RULE_TEXT_MAX).optional()),
});
export type AffinityKeySource = z.infer<typeof keySource>;

const rule = z.object({
  name: z.string().trim().min(1).max(RULE_TEXT_MAX),
  model_regex: z.array(pattern).max(RULE_LIST_MAX).default([]),
  path_regex: z.array(pattern).max(RULE_LIST_MAX).default([]),
  user_agent_include: nullAsAbsent(z.array(z.string().max(RULE_TEXT_MAX)).max(RULE_LIST_MAX).optional()),
  key_sources: z.array(keySource).max(KEY_SOURCES_MAX).default([]),
  value_regex: z.union([pattern, z.literal('')]).default(''),
  ttl_seconds: z.number().int().min(0).max(AFFINITY_MAX_TTL_SECONDS).default(0),
  /** new-api's per-rule override template (its param-override operations): kept with the rule, not applied. */
  param_override_template: nullAsAbsent(z.record(z.string(), z.unknown()).optional()),
  skip_retry_on_failure: z.boolean().default(false),
  include_using_group: z.boolean().default(false),
  include_model_name: z.boolean().default(false),
  include_rule_name: z.boolean().default(false),
});
export type AffinityRule = z.infer<typeof rule>;

export const affinityRules = z
  .array(rule)
  .max(RULES_MAX)
  .refine(
    (rules) => new Set(rules.map((r) => r.name.trim())).size === rules.length,
    inputRule(ErrorCode.AffinityRuleNameTaken, 'rule names must be unique'),
  );

/** A default rule: a session key read from `key_sources` on `path` for `model`, keyed with its name and group. */
const defaultRule = (name: string, model: string, path: string, key_sources: AffinityKeySource[]): AffinityRule => ({
  name,
  model_regex: [model],
  path_regex: [path],
  key_sources,
  value_regex: '',
  ttl_seconds: 0,
  skip_retry_on_failure: false,
  include_using_group: true,
  include_model_name: false,
  include_rule_name: true,
});

/**
 * The rules a new install starts with: new-api's two (Codex CLI's prompt_cache_key on the Responses API, else its
 * session-id header; Claude Code's X-Claude-Code-Session-Id header (v2.1.86 on), else its metadata.user_id, which
 * carries the session id), plus OpenAI's prompt_cache_key on Chat Completions. A failure on the pinned channel moves
 * on to the next one (skip_retry_on_failure off): a lost prompt cache costs less than a failed call.
 */
export const DEFAULT_AFFINITY_RULES: AffinityRule[] = [
  defaultRule('codex cli trace', '^gpt-.*$', '/v1/responses', [
    { type: 'gjson', path: 'prompt_cache_key' },
    { type: 'request_header', key: 'session-id' },
    { type: 'request_header', key: 'session_id' },
  ]),
  defaultRule('claude cli trace', '^claude-.*$', '/v1/messages', [
    { type: 'request_header', key: 'X-Claude-Code-Session-Id' },
    { type: 'gjson', path: 'metadata.user_id' },
  ]),
  defaultRule('openai prompt cache key', '.*', '/v1/chat/completions', [{ type: 'gjson', path: 'prompt_cache_key' }]),
];

/** new-api's option keys of channel affinity, as its console writes them. */
export const affinityOptionDefs = {
  'channel_affinity_setting.enabled': bool(true),
  'channel_affinity_setting.switch_on_success': bool(true),
  'channel_affinity_setting.keep_on_channel_disabled': bool(false),
  'channel_affinity_setting.max_entries': int(AFFINITY_DEFAULT_MAX_ENTRIES, 1, AFFINITY_MAX_ENTRIES_LIMIT),
  'channel_affinity_setting.default_ttl_seconds': int(AFFINITY_DEFAULT_TTL_SECONDS, 1, AFFINITY_MAX_TTL_SECONDS),
  'channel_affinity_setting.rules': json(DEFAULT_AFFINITY_RULES, affinityRules),
} satisfies Record<string, OptionDef>;

/** The affinity cache's statistics (GET /api/option/channel_affinity_cache, new-api's shape). */
export interface AffinityCacheStats {
  enabled: boolean;
  total: number;
  unknown: number;
  by_rule_name: Record<string, number>;
  cache_capacity: number;
  cache_algo: string;
}
