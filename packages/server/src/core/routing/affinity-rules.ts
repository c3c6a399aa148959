import { hash as digest } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { affinityRules, AFFINITY_VALUE_MAX_CHARS, type AffinityKeySource, type AffinityRule } from '@tollway/shared';
import type { OptionsService } from '../options/service.js';
import { compileSafePattern, UnsafePatternError, type SafePattern } from '../../lib/safe-pattern.js';

/** A key source with its lookups prepared: a body path split, a header name in lower case. */
export interface CompiledSource extends AffinityKeySource {
  pathParts: string[];
  header: string;
}

/** A rule as matching uses it: patterns compiled once per change of the settings. */
export interface CompiledAffinityRule {
  name: string;
  models: Pick<SafePattern, 'test'>[];
  paths: Pick<SafePattern, 'test'>[];
  /** Lower-cased parts of the User-Agent of which one must appear (empty: any client). */
  userAgents: string[];
  sources: CompiledSource[];
  value: Pick<SafePattern, 'test'> | undefined;
  /** The pin's lifetime in ms (the rule's, else the default). */
  ttlMs: number;
  skipRetry: boolean;
  includeGroup: boolean;
  includeModel: boolean;
  includeName: boolean;
}

export interface AffinitySettings {
  enabled: boolean;
  /** A session whose pinned channel failed is pinned to the channel that then served it. */
  switchOnSuccess: boolean;
  /** A pin to a channel that was disabled is kept (unused) for when it comes back. */
  keepOnChannelDisabled: boolean;
  maxEntries: number;
  defaultTtlMs: number;
  rules: CompiledAffinityRule[];
}

/** What a context source may name of the caller (new-api's context keys). */
export interface AffinityCaller {
  tokenId: number;
  userId: number;
  tokenName: string;
  tokenGroup: string;
  username: string;
  userGroup: string;
}

/** A call's session, found by a rule: where its pin is kept and what the logs and statistics show of it. */
export interface AffinityMatch {
  rule: CompiledAffinityRule;
  /** The pin's key: [rule name][model][group] and the session value's hash, ':'-joined (names URI-encoded). */
  key: string;
  /** The first 8 hex digits of the value's hash: how logs and the usage statistics name the session. */
  fingerprint: string;
  /** The value's first and last 4 characters (a value of up to 12 as it is): what the admin log shows. */
  hint: string;
  source: AffinityKeySource;
  group: string;
  model: string;
}

const MS = 1000;
const HASH_HEX = 32;
const FINGERPRINT_HEX = 8;
const HINT_FULL_MAX = 12;
const HINT_EDGE = 4;

/** Regular-expression syntax beyond a plain text. */
const SYNTAX = /[\\^$.|?*+()[\]{}]/;
const ANY = '.*';
const always: Pick<SafePattern, 'test'> = { test: () => true };

/**
 * The plain forms operators write (`.*`, `^gpt-.*$`, `/v1/messages`, `^exact$`) as string tests with the regular
 * expression's meaning (`.` never matches a line break); undefined for anything else, which the engine runs.
 */
export function plainPattern(p: string): Pick<SafePattern, 'test'> | undefined {
  const start = p.startsWith('^');
  let body = start ? p.slice(1) : p;
  // `.*$`: the rest of the text up to its end holds no line break; `.*`: anything may follow; `$`: nothing may.
  let tail: 'any' | 'line' | 'end' | 'none' = 'none';
  if (body.endsWith(`${ANY}$`)) {
    body = body.slice(0, -3);
    tail = 'line';
  } else if (body.endsWith(ANY)) {
    body = body.slice(0, -2);
    tail = 'any';
  } else if (body.endsWith('$')) {
    body = body.slice(0, -1);
    tail = 'end';
  }
  if (SYNTAX.test(body)) return undefined;
  if (start) {
    if (tail === 'line') return { test: (s) => s.startsWith(body) && !s.includes('\n', body.length) };
    if (tail === 'end') return { test: (s) => s === body };
    return body === '' ? always : { test: (s) => s.startsWith(body) };
  }
  if (tail === 'line')
    return {
      test: (s) => {
        const at = s.lastIndexOf(body);
        return at >= 0 && !s.includes('\n', at + body.length);
      },
    };
  if (tail === 'end') return { test: (s) => s.endsWith(body) };
  return body === '' ? always : { test: (s) => s.includes(body) };
}

const compileAll = (patterns: string[]): Pick<SafePattern, 'test'>[] =>
  patterns.filter((p) => p !== '').map((p) => plainPattern(p) ?? compileSafePattern(p));

/**
 * A rule with its patterns compiled in the linear-time engine (administrators' patterns run on callers' values);
 * undefined when the engine refuses one of them (a back-reference, a look-around): such a rule never applies.
 */
function compileRule(rule: AffinityRule, defaultTtlMs: number): CompiledAffinityRule | undefined {
  try {
    return compiledRule(rule, defaultTtlMs);
  } catch (err) {
    if (err instanceof UnsafePatternError) return undefined;
    throw err;
  }
}

function compiledRule(rule: AffinityRule, defaultTtlMs: number): CompiledAffinityRule {
  return {
    name: rule.name.trim(),
    models: compileAll(rule.model_regex),
    paths: compileAll(rule.path_regex),
    userAgents: (rule.user_agent_include ?? []).map((s) => s.trim().toLowerCase()).filter((s) => s !== ''),
    sources: rule.key_sources.map((src) => ({
      ...src,
      pathParts: src.path ? src.path.split('.') : [],
      header: (src.key ?? '').toLowerCase(),
    })),
    value: rule.value_regex ? (plainPattern(rule.value_regex) ?? compileSafePattern(rule.value_regex)) : undefined,
    ttlMs: rule.ttl_seconds > 0 ? rule.ttl_seconds * MS : defaultTtlMs,
    skipRetry: rule.skip_retry_on_failure,
    includeGroup: rule.include_using_group,
    includeModel: rule.include_model_name,
    includeName: rule.include_rule_name,
  };
}

function readSettings(o: OptionsService): AffinitySettings {
  const defaultTtlMs = o.num('channel_affinity_setting.default_ttl_seconds') * MS;
  const parsed = affinityRules.safeParse(o.json('channel_affinity_setting.rules'));
  return {
    enabled: o.bool('channel_affinity_setting.enabled'),
    switchOnSuccess: o.bool('channel_affinity_setting.switch_on_success'),
    keepOnChannelDisabled: o.bool('channel_affinity_setting.keep_on_channel_disabled'),
    maxEntries: o.num('channel_affinity_setting.max_entries'),
    defaultTtlMs,
    rules: parsed.success
      ? parsed.data.map((r) => compileRule(r, defaultTtlMs)).filter((r): r is CompiledAffinityRule => r !== undefined)
      : [],
  };
}

/** The affinity settings, compiled on the first read after any option changes. */
export class AffinitySettingsCache {
  private current: AffinitySettings | undefined;

  constructor(private readonly options: OptionsService) {
    options.onChange(() => {
      this.current = undefined;
    });
  }

  get(): AffinitySettings {
    return (this.current ??= readSettings(this.options));
  }
}

/** A value at a gjson-style dot path (`metadata.user_id`, `input.0.id`, split) of a parsed JSON body. */
function atPath(body: unknown, parts: string[]): unknown {
  let v: unknown = body;
  for (const part of parts) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

function scalarText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

function contextValue(caller: AffinityCaller, group: string, src: AffinityKeySource): string {
  const key = src.key ?? '';
  if (src.type === 'context_int') {
    const n = key === 'token_id' ? caller.tokenId : key === 'id' || key === 'user_id' ? caller.userId : 0;
    return n > 0 ? String(n) : '';
  }
  switch (key) {
    case 'token_name':
      return caller.tokenName;
    case 'token_group':
      return caller.tokenGroup;
    case 'username':
      return caller.username;
    case 'user_group':
      return caller.userGroup;
    case 'group':
      return group;
    default:
      return '';
  }
}

function sourceValue(
  src: CompiledSource,
  headers: IncomingHttpHeaders,
  body: unknown,
  caller: AffinityCaller,
  group: string,
): string {
  switch (src.type) {
    case 'gjson':
      return src.pathParts.length ? scalarText(atPath(body, src.pathParts)) : '';
    case 'request_header': {
      const h = src.header ? headers[src.header] : undefined;
      return (Array.isArray(h) ? (h[0] ?? '') : (h ?? '')).trim();
    }
    default:
      return contextValue(caller, group, src);
  }
}

function anyMatches(patterns: Pick<SafePattern, 'test'>[], text: string): boolean {
  for (const p of patterns) if (p.test(text)) return true;
  return false;
}

/** The hint of a session value new-api's admin log shows: short values whole, long ones by their ends. */
function hintOf(value: string): string {
  const flat = value.replace(/[\r\n]/g, ' ');
  return flat.length <= HINT_FULL_MAX ? flat : `${flat.slice(0, HINT_EDGE)}...${flat.slice(-HINT_EDGE)}`;
}

/**
 * The first rule that matches the call (model, path, client) and finds a session value in it, as new-api takes
 * them: in order, the first key source with a value winning. Undefined when affinity is off or no rule applies.
 */
export function matchAffinity(
  settings: AffinitySettings,
  call: { model: string; path: string; headers: IncomingHttpHeaders; body: unknown },
  caller: AffinityCaller,
  group: string,
): AffinityMatch | undefined {
  if (!settings.enabled) return undefined;
  for (const rule of settings.rules) {
    if (!anyMatches(rule.models, call.model)) continue;
    if (rule.paths.length > 0 && !anyMatches(rule.paths, call.path)) continue;
    if (rule.userAgents.length > 0) {
      const ua = String(call.headers['user-agent'] ?? '').toLowerCase();
      if (!rule.userAgents.some((part) => ua.includes(part))) continue;
    }
    let value = '';
    let source: CompiledSource | undefined;
    for (const src of rule.sources) {
      value = sourceValue(src, call.headers, call.body, caller, group).slice(0, AFFINITY_VALUE_MAX_CHARS);
      if (value !== '') {
        source = src;
        break;
      }
    }
    if (!source) continue;
    if (rule.value && !rule.value.test(value)) continue;
    const hash = digest('sha256', value, 'hex');
    const parts: string[] = [];
    if (rule.includeName) parts.push(encodeURIComponent(rule.name));
    if (rule.includeModel) parts.push(encodeURIComponent(call.model));
    if (rule.includeGroup) parts.push(encodeURIComponent(group));
    parts.push(hash.slice(0, HASH_HEX));
    return {
      rule,
      key: parts.join(':'),
      fingerprint: hash.slice(0, FINGERPRINT_HEX),
      hint: hintOf(value),
      source,
      group,
      model: call.model,
    };
  }
  return undefined;
}
