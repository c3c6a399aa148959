/**
 * A channel's `settings` column: new-api's "other settings" JSON object (dto.ChannelOtherSettings). The whole
 * object is stored as sent; these are the keys Tollway knows. Unknown keys are kept and do nothing.
 *
 * Body fields (applied to the final upstream body of chat-style calls, as new-api does, unless the channel's
 * `setting.pass_through_body_enabled` is on):
 * - `service_tier`, `inference_geo`, `speed`, `safety_identifier` are removed unless `allow_<field>` is true;
 * - `stream_options.include_obfuscation` is removed unless `allow_include_obfuscation` is true;
 * - `store` is kept unless `disable_store` is true.
 *
 * `claude_beta_query`: calls to Anthropic channels go to `/v1/messages?beta=true`.
 *
 * Refused when saved (Tollway cannot honour them): `vertex_key_type: "api_key"` and `aws_key_type: "api_key"`
 * (Tollway's Vertex and Bedrock channels take service-account JSON and AK|SK|Region keys),
 * `openrouter_enterprise: true` (the enterprise answer envelope is not unwrapped) and a non-empty
 * `azure_responses_version` (Tollway serves /v1/responses on Azure through chat completions, whose api-version is
 * the channel's `other` field).
 *
 * `upstream_model_update_*` belong to the upstream model update check: checked for their types only.
 */

/** Boolean keys (null, Go's zero value when unmarshalled, is allowed too). */
const BOOLEAN_KEYS = [
  'claude_beta_query',
  'allow_service_tier',
  'allow_inference_geo',
  'allow_speed',
  'allow_safety_identifier',
  'disable_store',
  'allow_include_obfuscation',
  'openrouter_enterprise',
  'upstream_model_update_check_enabled',
  'upstream_model_update_auto_sync_enabled',
] as const;
const STRING_KEYS = ['azure_responses_version', 'vertex_key_type', 'aws_key_type'] as const;
const NUMBER_KEYS = ['upstream_model_update_last_check_time'] as const;
const LIST_KEYS = [
  'upstream_model_update_last_detected_models',
  'upstream_model_update_last_removed_models',
  'upstream_model_update_ignored_models',
] as const;

/** Body fields removed unless the channel allows them (new-api's defaults). */
const ALLOWABLE_FIELDS = [
  ['allow_service_tier', 'service_tier'],
  ['allow_inference_geo', 'inference_geo'],
  ['allow_speed', 'speed'],
  ['allow_safety_identifier', 'safety_identifier'],
] as const;

/** What a channel's settings change on a call, parsed once per cache build. */
export interface ChannelCallSettings {
  /** Top-level body fields removed before the call (empty: none). */
  dropFields: readonly string[];
  /** Remove `stream_options.include_obfuscation`. */
  dropObfuscation: boolean;
  /** Anthropic channels: `?beta=true` on the messages URL. */
  claudeBetaQuery: boolean;
}

export type SettingProblem = { kind: 'invalid' | 'unsupported'; setting: string };

const NOTHING: ChannelCallSettings = { dropFields: [], dropObfuscation: false, claudeBetaQuery: false };
/** The common case (no settings): one shared object. */
const DEFAULTS: ChannelCallSettings = {
  dropFields: ALLOWABLE_FIELDS.map(([, field]) => field),
  dropObfuscation: true,
  claudeBetaQuery: false,
};

/**
 * The call settings of a channel's `settings` object; `passThrough` (the channel's pass_through_body_enabled)
 * leaves the body alone.
 */
export function callSettingsOf(s: Record<string, unknown>, passThrough: boolean): ChannelCallSettings {
  const claudeBetaQuery = s.claude_beta_query === true;
  if (passThrough) return claudeBetaQuery ? { ...NOTHING, claudeBetaQuery } : NOTHING;
  const dropFields: string[] = ALLOWABLE_FIELDS.filter(([allow]) => s[allow] !== true).map(([, field]) => field);
  if (s.disable_store === true) dropFields.push('store');
  const dropObfuscation = s.allow_include_obfuscation !== true;
  if (!claudeBetaQuery && dropObfuscation && dropFields.length === DEFAULTS.dropFields.length) return DEFAULTS;
  return { dropFields, dropObfuscation, claudeBetaQuery };
}

/** The first known key whose value Tollway refuses (wrong type, or a value it cannot honour); unknown keys pass. */
export function settingsProblem(s: Record<string, unknown>): SettingProblem | undefined {
  const invalid = (setting: string): SettingProblem => ({ kind: 'invalid', setting });
  const unsupported = (setting: string): SettingProblem => ({ kind: 'unsupported', setting });
  for (const k of BOOLEAN_KEYS) if (s[k] != null && typeof s[k] !== 'boolean') return invalid(k);
  for (const k of STRING_KEYS) if (s[k] != null && typeof s[k] !== 'string') return invalid(k);
  for (const k of NUMBER_KEYS) if (s[k] != null && !Number.isInteger(s[k])) return invalid(k);
  for (const k of LIST_KEYS) {
    const v = s[k];
    if (v != null && !(Array.isArray(v) && v.every((m) => typeof m === 'string'))) return invalid(k);
  }
  const text = (k: string) => (typeof s[k] === 'string' ? (s[k] as string).trim() : '');
  if (!['', 'json', 'api_key'].includes(text('vertex_key_type'))) return invalid('vertex_key_type');
  if (text('vertex_key_type') === 'api_key') return unsupported('vertex_key_type');
  if (!['', 'ak_sk', 'api_key'].includes(text('aws_key_type'))) return invalid('aws_key_type');
  if (text('aws_key_type') === 'api_key') return unsupported('aws_key_type');
  if (s.openrouter_enterprise === true) return unsupported('openrouter_enterprise');
  if (text('azure_responses_version') !== '') return unsupported('azure_responses_version');
  return undefined;
}

/**
 * Removes the fields the channel does not allow from a body about to be sent; true when something was removed.
 * Touches nothing (and allocates nothing) when the body has none of them.
 */
export function dropDisabledFields(body: Record<string, unknown>, s: ChannelCallSettings): boolean {
  let changed = false;
  for (const f of s.dropFields) {
    if (f in body) {
      delete body[f];
      changed = true;
    }
  }
  if (s.dropObfuscation) {
    const so = body.stream_options;
    if (so && typeof so === 'object' && 'include_obfuscation' in so) {
      const rest = { ...(so as Record<string, unknown>) };
      delete rest.include_obfuscation;
      body.stream_options = rest;
      changed = true;
    }
  }
  return changed;
}

/** Whether `dropDisabledFields` would change the body (for a pass-through that keeps the caller's bytes). */
export function hasDisabledFields(body: Record<string, unknown>, s: ChannelCallSettings): boolean {
  for (const f of s.dropFields) if (f in body) return true;
  const so = body.stream_options;
  return s.dropObfuscation && !!so && typeof so === 'object' && 'include_obfuscation' in so;
}
