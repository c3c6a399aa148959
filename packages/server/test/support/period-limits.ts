import type { PeriodLimitKey, PeriodRemaining } from '@tollway/shared';
import { periodLimitsOf } from '../../src/core/period-limits/service.js';
import { createUserClient, type Client, type TestApp } from './app.js';
import { setQuota } from './gateway.js';

/** A model with a fixed price per call: $0.001 = 500 quota, held and charged alike (the hold is the charge). */
export const FIXED_MODEL = 'fixed-model';
export const PER_CALL = 500;

/** Moves an app's period-limit clock to `at` (epoch ms); `undefined` gives it back the real clock. */
export function setPeriodClock(t: TestApp, at: number | undefined): void {
  periodLimitsOf(t.runtime.ctx).now = at === undefined ? Date.now : () => at;
}

/** A funded user with one token (created through the API, `limits` on it); returns the user and the sk- key. */
export async function limitedToken(
  t: TestApp,
  root: Client,
  name: string,
  limits: Partial<Record<PeriodLimitKey, number>>,
): Promise<{ user: Client; key: string; id: number }> {
  const user = await createUserClient(t.app, root, name);
  await setQuota(root, user.userId!, 100_000_000);
  const res = await user.call<{ id: number; key: string }[]>('POST', '/api/token/', {
    name: `${name}-token`,
    unlimited_quota: true,
    ...limits,
  });
  if (!res.body.success) throw new Error(`token refused: ${res.body.message}`);
  const [token] = res.body.data!;
  return { user, key: `sk-${token!.key}`, id: token!.id };
}

/** An OpenAI chat call. */
export function openaiCall(base: string, key: string, model = FIXED_MODEL, maxTokens = 20): Promise<Response> {
  return fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: maxTokens, messages: [{ role: 'user', content: 'count me' }] }),
  });
}

/** A Claude Messages call. */
export function claudeCall(base: string, key: string, model = FIXED_MODEL): Promise<Response> {
  return fetch(`${base}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 20, messages: [{ role: 'user', content: 'count me' }] }),
  });
}

/** GET /api/usage/token with the key: its period limits (and its owner's) as shown to the caller. */
export async function periodUsage(base: string, key: string): Promise<PeriodRemaining[]> {
  const res = await fetch(`${base}/api/usage/token/`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { data: { period_limits: PeriodRemaining[] } }).data.period_limits;
}
