import type { DetailLog, UpstreamQuery } from '../../../core/providers.js';
import { ErrorCode } from '@tollway/shared';
import { coded } from '../../../lib/errors.js';
import { requiredBaseUrl } from '../base-url.js';
import { getJson } from '../upstream-json.js';
import { compatibleTarget } from './vendors.js';

/** The sorted, distinct ids of an OpenAI-shaped model list ({data: [{id}]}). */
export function modelListIds(body: { data?: { id?: string }[] }): string[] {
  if (!Array.isArray(body.data))
    throw coded(ErrorCode.UpstreamModelsMissing, 'the upstream model list has no data array', undefined, 502);
  const ids = new Set<string>();
  for (const m of body.data) if (typeof m?.id === 'string' && m.id) ids.add(m.id);
  return [...ids].sort();
}

/** `GET {base}/v1/models` with a Bearer key; OpenAI-compatible vendors list under their own prefix (e.g. /api/v3/models). */
export async function listOpenAIModels({ type, baseUrl, key }: UpstreamQuery, log?: DetailLog): Promise<string[]> {
  const base = requiredBaseUrl(type, baseUrl);
  const vendor = compatibleTarget({ type, other: '' }, key, '/v1/models');
  return modelListIds(await getJson(`${base}${vendor.path}`, { authorization: `Bearer ${vendor.key}` }, key, log));
}
