import { ChannelType } from '@tollway/shared';
import type { UpstreamQuery } from '../../../core/providers.js';
import { requiredBaseUrl } from '../base-url.js';
import { getJson } from '../upstream-json.js';

const DAY_MS = 86_400_000;
/** How far back OpenAI's usage is summed against the subscription's hard limit. */
const USAGE_WINDOW_DAYS = 100;
const day = (d: Date) => d.toISOString().slice(0, 10);
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** OpenAI-style billing: subscription hard limit minus usage, else credit grants' total available. */
async function openaiBalance({ type, baseUrl, key }: UpstreamQuery): Promise<number> {
  const base = requiredBaseUrl(type, baseUrl);
  const auth = bearer(key);
  try {
    const sub = await getJson<{ hard_limit_usd?: number }>(`${base}/v1/dashboard/billing/subscription`, auth, key);
    const now = Date.now();
    const start = new Date(now - USAGE_WINDOW_DAYS * DAY_MS);
    const end = new Date(now + DAY_MS);
    const usage = await getJson<{ total_usage?: number }>(
      `${base}/v1/dashboard/billing/usage?start_date=${day(start)}&end_date=${day(end)}`,
      auth,
      key,
    );
    return Number(sub.hard_limit_usd ?? 0) - Number(usage.total_usage ?? 0) / 100;
  } catch (err) {
    const grants = await getJson<{ total_available?: number }>(
      `${base}/v1/dashboard/billing/credit_grants`,
      auth,
      key,
    ).catch(() => {
      throw err;
    });
    return Number(grants.total_available ?? 0);
  }
}

async function openRouterBalance({ type, baseUrl, key }: UpstreamQuery): Promise<number> {
  const body = await getJson<{ data?: { total_credits?: number; total_usage?: number } }>(
    `${requiredBaseUrl(type, baseUrl)}/v1/credits`,
    bearer(key),
    key,
  );
  return Number(body.data?.total_credits ?? 0) - Number(body.data?.total_usage ?? 0);
}

async function siliconFlowBalance({ type, baseUrl, key }: UpstreamQuery): Promise<number> {
  const body = await getJson<{ data?: { totalBalance?: string | number; balance?: string | number } }>(
    `${requiredBaseUrl(type, baseUrl)}/v1/user/info`,
    bearer(key),
    key,
  );
  return Number(body.data?.totalBalance ?? body.data?.balance ?? Number.NaN);
}

async function deepSeekBalance({ type, baseUrl, key }: UpstreamQuery): Promise<number> {
  const body = await getJson<{ balance_infos?: { currency?: string; total_balance?: string }[] }>(
    `${requiredBaseUrl(type, baseUrl)}/user/balance`,
    bearer(key),
    key,
  );
  const infos = body.balance_infos ?? [];
  const pick = infos.find((b) => b.currency === 'USD') ?? infos[0];
  return Number(pick?.total_balance ?? Number.NaN);
}

/** The OpenAI-compatible vendors with a billing API. */
export const openAICompatibleBalances: Readonly<Record<number, (q: UpstreamQuery) => Promise<number>>> = {
  [ChannelType.OpenAI]: openaiBalance,
  [ChannelType.Custom]: openaiBalance,
  [ChannelType.OpenRouter]: openRouterBalance,
  [ChannelType.SiliconFlow]: siliconFlowBalance,
  [ChannelType.DeepSeek]: deepSeekBalance,
};
