import { ChannelType, ErrorCode } from '@tollway/shared';
import type { ProviderCatalog } from '../../core/providers.js';
import { coded } from '../../lib/errors.js';
import { parseJsonObject, resolveModelMapping } from '../../core/routing/channel-row.js';
import { settingsProblem } from '../../core/routing/channel-settings.js';
import { readHeaderOverride } from '../../core/routing/header-override.js';

/** Key lines of a batch or multi-key submission: one per line (commas also separate), blanks dropped. */
export function splitKeyLines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((k) => k.trim())
    .filter(Boolean);
}

/** A batch of JSON keys (Vertex AI): a JSON array of objects, one channel each (or one object). */
export function splitJsonKeys(type: number, text: string): string[] {
  const refuse = () =>
    coded(
      ErrorCode.ChannelKeyBatchJson,
      `key: for type ${type} batch creation the key must be a JSON array of service account objects`,
      { type },
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse();
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  if (list.length === 0 || !list.every((k) => k && typeof k === 'object' && !Array.isArray(k))) throw refuse();
  return list.map((k) => JSON.stringify(k));
}

/**
 * Checks each key with its provider (the type's key format, e.g. `APIKey|SecretKey`; Vertex AI keys must be usable
 * service-account JSON keys), so a bad one is refused when saved rather than on the first call.
 */
export function checkKeys(providers: ProviderCatalog, type: number, keys: string[]): void {
  for (const [i, key] of keys.entries()) {
    try {
      providers.checkKey(type, key);
    } catch (err) {
      const reason = (err as Error).message;
      throw coded(ErrorCode.ChannelKeyInvalid, `key${keys.length > 1 ? ` (key ${i + 1})` : ''}: ${reason}`, {
        index: i + 1,
        reason,
      });
    }
  }
}

/** `other` by type: iFlytek Spark's API version defaults to v2.1; the provider checks what it reads there. */
export function normalizeOther(providers: ProviderCatalog, type: number, other: string): string {
  if (type === ChannelType.Xunfei && other.trim() === '') return 'v2.1';
  try {
    providers.checkOther(type, other);
  } catch (err) {
    throw coded(ErrorCode.ChannelOtherInvalid, `other: for type ${type} ${(err as Error).message}`, {
      type,
      reason: (err as Error).message,
    });
  }
  return other;
}

/** model_mapping values must be names and the chain must end (a→b→a is refused). */
export function checkModelMapping(text: string): void {
  if (!text) return;
  const mapping = JSON.parse(text) as Record<string, unknown>;
  for (const [from, to] of Object.entries(mapping)) {
    if (typeof to !== 'string')
      throw coded(ErrorCode.ModelMappingTarget, `model_mapping: the target of "${from}" must be a model name (text)`, {
        model: from,
      });
  }
  for (const from of Object.keys(mapping)) {
    const res = resolveModelMapping(mapping as Record<string, string>, from);
    if ('error' in res)
      throw coded(ErrorCode.ModelMappingInvalid, `model_mapping: ${res.error}`, { reason: res.error });
  }
}

/** status_code_mapping maps an upstream status to the one the client sees, e.g. {"400": "500"}. */
export function checkStatusCodeMapping(text: string): void {
  if (!text) return;
  const mapping = JSON.parse(text) as Record<string, unknown>;
  for (const [from, to] of Object.entries(mapping)) {
    const target = typeof to === 'number' ? String(to) : to;
    if (!/^[1-5]\d\d$/.test(from) || typeof target !== 'string' || !/^[1-5]\d\d$/.test(target)) {
      throw coded(
        ErrorCode.StatusCodeMappingInvalid,
        'status_code_mapping must map HTTP status codes to status codes, e.g. {"400": "500"}',
      );
    }
  }
}

/** The joined group list is stored in a 255-character column. */
const GROUP_COLUMN_CHARS = 255;

export function joinGroups(groups: string[]): string {
  const joined = groups.join(',');
  if (joined.length > GROUP_COLUMN_CHARS)
    throw coded(
      ErrorCode.ChannelGroupTooLong,
      `group: the group list must be at most ${GROUP_COLUMN_CHARS} characters`,
      { max: GROUP_COLUMN_CHARS },
    );
  return joined;
}

const HEADER_REFUSALS = {
  invalid: [ErrorCode.ChannelHeaderInvalid, 'is not a valid header name or value (values are one line of text)'],
  forbidden: [ErrorCode.ChannelHeaderForbidden, 'is set by the connection or by Tollway and cannot be overridden'],
  credential: [
    ErrorCode.ChannelHeaderCredential,
    'carries a credential: its value must use {api_key} (the channel key, kept sealed), not a literal secret or a client header',
  ],
} as const;

/**
 * header_override and settings (both already JSON objects or ''): header names, values and placeholders follow
 * the rules of core/routing/header-override.ts; known settings have their types and values Tollway can honour.
 */
export function checkChannelExtras(c: { header_override?: string; settings?: string }): void {
  if (c.header_override) {
    const r = readHeaderOverride(parseJsonObject<Record<string, unknown>>(c.header_override, {}), true);
    if (r && 'kind' in r) {
      const [code, why] = HEADER_REFUSALS[r.kind];
      throw coded(code, `header_override: "${r.header}" ${why}`, { header: r.header });
    }
  }
  if (c.settings) {
    const p = settingsProblem(parseJsonObject<Record<string, unknown>>(c.settings, {}));
    if (p?.kind === 'invalid')
      throw coded(ErrorCode.ChannelSettingInvalid, `settings.${p.setting}: the value has the wrong type`, {
        setting: p.setting,
      });
    if (p)
      throw coded(
        ErrorCode.ChannelSettingUnsupported,
        `settings.${p.setting}: Tollway does not support this value; remove it (see docs/switching-from-new-api.md)`,
        { setting: p.setting },
      );
  }
}
