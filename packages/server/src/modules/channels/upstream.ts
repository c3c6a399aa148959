import { channelTypeById } from '@tollway/shared';
import { request } from 'undici';
import { ApiError } from '../../http/errors.js';
import { compatibleTarget } from '../../relay/providers/openai/vendors.js';
import { redactKeys } from './status.js';

const TIMEOUT_MS = 20_000;
const MAX_BODY = 8 * 1024 * 1024;

/** The channel's base URL, or its type's default; refused when neither exists. */
export function upstreamBase(type: number, baseUrl: string): string {
  const base = (baseUrl || channelTypeById.get(type)?.baseUrl || '').replace(/\/+$/, '');
  if (!base) throw new ApiError('this channel has no base_url and its type has no default address');
  return base;
}

/** A message from an upstream error body ({error:{message}}, {message}, or the text). */
function upstreamMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    if (typeof body.error === 'object' && body.error?.message) return body.error.message;
    if (typeof body.error === 'string') return body.error;
    if (body.message) return body.message;
  } catch {
    // not JSON
  }
  return text.slice(0, 300);
}

/**
 * GET a JSON document from an upstream with undici. Failures become an ApiError (502) whose message never
 * contains the key.
 */
export async function getJson<T>(url: string, headers: Record<string, string>, key: string): Promise<T> {
  let status: number;
  let text = '';
  try {
    const res = await request(url, { method: 'GET', headers: { accept: 'application/json', ...headers }, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
    status = res.statusCode;
    let size = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) {
        res.body.destroy();
        throw new Error('the upstream answer is too large');
      }
      chunks.push(chunk as Buffer);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    throw new ApiError(redactKeys(`cannot reach the upstream: ${(err as Error).message}`, [key]), 502);
  }
  if (status >= 400) throw new ApiError(redactKeys(`upstream answered ${status}: ${upstreamMessage(text)}`, [key]), 502);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(`upstream answered ${status} with a body that is not JSON`, 502);
  }
}

/** Model ids an upstream lists: OpenAI-style /v1/models, Gemini /v1beta/models, Anthropic with its headers. */
export async function fetchUpstreamModels(type: number, baseUrl: string, key: string): Promise<string[]> {
  const base = upstreamBase(type, baseUrl);
  const ids = new Set<string>();
  if (type === 24) {
    let pageToken = '';
    for (let page = 0; page < 20; page++) {
      const url = `${base}/v1beta/models?pageSize=1000&key=${encodeURIComponent(key)}${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`;
      const body = await getJson<{ models?: { name?: string }[]; nextPageToken?: string }>(url, {}, key);
      for (const m of body.models ?? []) if (m.name) ids.add(m.name.replace(/^models\//, ''));
      if (!body.nextPageToken) break;
      pageToken = body.nextPageToken;
    }
  } else {
    // OpenAI-compatible vendors list their models under their own prefix (e.g. /api/v3/models).
    const vendor = compatibleTarget({ type, other: '' }, key, '/v1/models');
    const headers: Record<string, string> = type === 14 ? { 'x-api-key': key, 'anthropic-version': '2023-06-01' } : { authorization: `Bearer ${vendor.key}` };
    const body = await getJson<{ data?: { id?: string }[] }>(`${base}${vendor.path}`, headers, key);
    if (!Array.isArray(body.data)) throw new ApiError('the upstream model list has no data array', 502);
    for (const m of body.data) if (typeof m?.id === 'string' && m.id) ids.add(m.id);
  }
  return [...ids].sort();
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** OpenAI-style billing: subscription hard limit minus usage, else credit grants' total available. */
async function openaiBalance(base: string, key: string): Promise<number> {
  const auth = { authorization: `Bearer ${key}` };
  try {
    const sub = await getJson<{ hard_limit_usd?: number }>(`${base}/v1/dashboard/billing/subscription`, auth, key);
    const now = new Date();
    const start = new Date(now.getTime() - 100 * 86_400_000);
    const end = new Date(now.getTime() + 86_400_000);
    const usage = await getJson<{ total_usage?: number }>(`${base}/v1/dashboard/billing/usage?start_date=${day(start)}&end_date=${day(end)}`, auth, key);
    return Number(sub.hard_limit_usd ?? 0) - Number(usage.total_usage ?? 0) / 100;
  } catch (err) {
    const grants = await getJson<{ total_available?: number }>(`${base}/v1/dashboard/billing/credit_grants`, auth, key).catch(() => {
      throw err;
    });
    return Number(grants.total_available ?? 0);
  }
}

/** Balance types: OpenAI (1), custom (8), OpenRouter (20), SiliconFlow (40), DeepSeek (43). */
export const BALANCE_TYPES = new Set([1, 8, 20, 40, 43]);

/** Queries the upstream's remaining balance (in the provider's currency, USD where it has one). */
export async function fetchUpstreamBalance(type: number, baseUrl: string, key: string): Promise<number> {
  if (!BALANCE_TYPES.has(type)) throw new ApiError('balance query not supported for this channel type');
  const base = upstreamBase(type, baseUrl);
  const auth = { authorization: `Bearer ${key}` };
  let balance: number;
  if (type === 20) {
    const body = await getJson<{ data?: { total_credits?: number; total_usage?: number } }>(`${base}/v1/credits`, auth, key);
    balance = Number(body.data?.total_credits ?? 0) - Number(body.data?.total_usage ?? 0);
  } else if (type === 40) {
    const body = await getJson<{ data?: { totalBalance?: string | number; balance?: string | number } }>(`${base}/v1/user/info`, auth, key);
    balance = Number(body.data?.totalBalance ?? body.data?.balance ?? Number.NaN);
  } else if (type === 43) {
    const body = await getJson<{ balance_infos?: { currency?: string; total_balance?: string }[] }>(`${base}/user/balance`, auth, key);
    const infos = body.balance_infos ?? [];
    const pick = infos.find((b) => b.currency === 'USD') ?? infos[0];
    balance = Number(pick?.total_balance ?? Number.NaN);
  } else {
    balance = await openaiBalance(base, key);
  }
  if (!Number.isFinite(balance)) throw new ApiError('the upstream balance answer has no balance', 502);
  return Math.round(balance * 1e6) / 1e6;
}
