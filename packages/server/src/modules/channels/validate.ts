import { channelTypeById } from '@tollway/shared';
import { ApiError } from '../../http/errors.js';
import { checkServiceAccountKey } from '../../relay/providers/vertex/jwt.js';
import { resolveModelMapping } from '../../core/routing/channel-row.js';

/** Vertex AI: `other` is a region (text) or a JSON map of model → region; no multi-key. */
export const TYPE_VERTEX = 41;
/** iFlytek Spark: `other` is the API version, v2.1 when empty. */
export const TYPE_SPARK = 18;

/** Key lines of a batch or multi-key submission: one per line (commas also separate), blanks dropped. */
export function splitKeyLines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((k) => k.trim())
    .filter(Boolean);
}

/** Vertex AI batch: the key is a JSON array of service-account objects, one channel each (or one object). */
export function splitVertexKeys(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError('key: for type 41 batch creation the key must be a JSON array of service account objects');
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  if (list.length === 0 || !list.every((k) => k && typeof k === 'object' && !Array.isArray(k))) {
    throw new ApiError('key: for type 41 batch creation the key must be a JSON array of service account objects');
  }
  return list.map((k) => JSON.stringify(k));
}

/**
 * Checks each key against the type's format (spec 2 §9), e.g. type 15 `APIKey|SecretKey`; Vertex AI keys must be
 * usable service-account JSON keys, so a bad one is refused when saved rather than on the first call.
 */
export function checkKeyFormat(type: number, keys: string[]): void {
  if (type === TYPE_VERTEX) {
    for (const [i, key] of keys.entries()) {
      try {
        checkServiceAccountKey(key);
      } catch (err) {
        throw new ApiError(`key${keys.length > 1 ? ` (key ${i + 1})` : ''}: ${(err as Error).message}`);
      }
    }
    return;
  }
  const format = channelTypeById.get(type)?.keyFormat;
  if (!format) return;
  const sep = format.includes('|') ? '|' : '-';
  const want = format.split(sep).length;
  for (const [i, key] of keys.entries()) {
    const parts = key.split(sep);
    // With '-' the API key itself may contain dashes: only the last part is the app id.
    const ok = sep === '|' ? parts.length === want && parts.every((p) => p.trim() !== '') : parts.length >= want && parts.every((p) => p !== '');
    if (!ok) {
      const which = keys.length > 1 ? ` (key ${i + 1})` : '';
      throw new ApiError(`key${which}: channel type ${type} needs the key format ${format}`);
    }
  }
}

/** `other` by type: type 18 defaults to v2.1; type 41 accepts text, but text starting with { must be JSON. */
export function normalizeOther(type: number, other: string): string {
  const v = other.trim();
  if (type === TYPE_SPARK && v === '') return 'v2.1';
  if (type === TYPE_VERTEX && v.startsWith('{')) {
    try {
      const parsed = JSON.parse(v) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    } catch {
      throw new ApiError('other: for type 41 the region must be plain text or a valid JSON object');
    }
  }
  return other;
}

/** model_mapping values must be names and the chain must end (a→b→a is refused). */
export function checkModelMapping(text: string): void {
  if (!text) return;
  const mapping = JSON.parse(text) as Record<string, unknown>;
  for (const [from, to] of Object.entries(mapping)) {
    if (typeof to !== 'string') throw new ApiError(`model_mapping: the target of "${from}" must be a model name (text)`);
  }
  for (const from of Object.keys(mapping)) {
    const res = resolveModelMapping(mapping as Record<string, string>, from);
    if ('error' in res) throw new ApiError(`model_mapping: ${res.error}`);
  }
}

/** status_code_mapping maps an upstream status to the one the client sees, e.g. {"400": "500"}. */
export function checkStatusCodeMapping(text: string): void {
  if (!text) return;
  const mapping = JSON.parse(text) as Record<string, unknown>;
  for (const [from, to] of Object.entries(mapping)) {
    const target = typeof to === 'number' ? String(to) : to;
    if (!/^[1-5]\d\d$/.test(from) || typeof target !== 'string' || !/^[1-5]\d\d$/.test(target)) {
      throw new ApiError('status_code_mapping must map HTTP status codes to status codes, e.g. {"400": "500"}');
    }
  }
}

/** The joined group list is stored in a 255-character column. */
export function joinGroups(groups: string[]): string {
  const joined = groups.join(',');
  if (joined.length > 255) throw new ApiError('group: the group list must be at most 255 characters');
  return joined;
}
