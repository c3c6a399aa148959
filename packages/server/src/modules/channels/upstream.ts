import { channelTypeById } from '@tollway/shared';
import type { Logger } from 'pino';
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

/** Where the detail of a refused answer is written (the caller only gets a short message). */
export type DetailLog = Pick<Logger, 'warn'>;

const ERROR_MESSAGE_CHARS = 300;

/**
 * The error message of a model API's JSON error answer ({error:{message}}, {error:"…"} or {message:"…"}), or
 * undefined for anything else: a page that is not a model API's answer is never echoed to the caller.
 */
export function modelErrorMessage(text: string, contentType: string): string | undefined {
  if (!contentType.toLowerCase().includes('json')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { error, message } = body as { error?: unknown; message?: unknown };
  const found = error && typeof error === 'object' ? (error as { message?: unknown }).message : (error ?? message);
  return typeof found === 'string' && found.trim() ? found.slice(0, ERROR_MESSAGE_CHARS) : undefined;
}

/** "HTTP 404 (text/html)": what a caller learns of an answer that is not a model API's error. */
export function answerSummary(status: number, contentType: string): string {
  const type = contentType.split(';')[0]!.trim();
  return `HTTP ${status}${type ? ` (${type})` : ''}`;
}

/**
 * GET a JSON document from an upstream with undici. Failures become an ApiError (502) whose message never
 * contains the key nor the body of a page that is not a model API's answer (that goes to `log`).
 */
export async function getJson<T>(url: string, headers: Record<string, string>, key: string, log?: DetailLog): Promise<T> {
  let status: number;
  let contentType = '';
  let text = '';
  try {
    const res = await request(url, { method: 'GET', headers: { accept: 'application/json', ...headers }, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
    status = res.statusCode;
    contentType = String(res.headers['content-type'] ?? '');
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
  const refuse = (message: string): never => {
    log?.warn({ status, contentType, body: redactKeys(text, [key]) }, 'upstream answer refused');
    throw new ApiError(redactKeys(message, [key]), 502);
  };
  if (status >= 400) {
    const known = modelErrorMessage(text, contentType);
    return refuse(`upstream answered ${known ? `${status}: ${known}` : answerSummary(status, contentType)}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    return refuse(`upstream answered ${answerSummary(status, contentType)}, which is not JSON`);
  }
}

/** Model ids an upstream lists: OpenAI-style /v1/models, Gemini /v1beta/models, Anthropic with its headers. */
export async function fetchUpstreamModels(type: number, baseUrl: string, key: string, log?: DetailLog): Promise<string[]> {
  const base = upstreamBase(type, baseUrl);
  const ids = new Set<string>();
  if (type === 24) {
    let pageToken = '';
    for (let page = 0; page < 20; page++) {
      const url = `${base}/v1beta/models?pageSize=1000&key=${encodeURIComponent(key)}${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`;
      const body = await getJson<{ models?: { name?: string }[]; nextPageToken?: string }>(url, {}, key, log);
      for (const m of body.models ?? []) if (m.name) ids.add(m.name.replace(/^models\//, ''));
      if (!body.nextPageToken) break;
      pageToken = body.nextPageToken;
    }
  } else {
    // OpenAI-compatible vendors list their models under their own prefix (e.g. /api/v3/models).
    const vendor = compatibleTarget({ type, other: '' }, key, '/v1/models');
    const headers: Record<string, string> = type === 14 ? { 'x-api-key': key, 'anthropic-version': '2023-06-01' } : { authorization: `Bearer ${vendor.key}` };
    const body = await getJson<{ data?: { id?: string }[] }>(`${base}${vendor.path}`, headers, key, log);
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
