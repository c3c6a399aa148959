import type { TestApp } from './app.js';

/** Fixed minute windows: a test that counts within one waits out a window about to end. */
export async function freshWindow(marginMs = 8_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}

/** Seconds to the end of the current minute window, as the relay reports them (at least 1). */
export const secondsLeft = (now = Date.now()) => Math.max(1, Math.ceil((60_000 - (now % 60_000)) / 1000));

/** Sets a token's per-minute limits in the database and drops it from the relay's cache. */
export async function setTokenLimits(t: TestApp, key: string, id: number, rpm: number, tpm: number): Promise<void> {
  await t.database.db.kysely
    .updateTable('tokens')
    .set({ rpm_limit: rpm, tpm_limit: tpm })
    .where('id', '=', id)
    .execute();
  t.runtime.ctx.relay.tokenChanged(key.replace(/^sk-/, ''), id);
}

/** A chat body and the tokens the relay reserves for it under a TPM limit (prompt estimate + max_tokens). */
export function chatBody(model: string, maxTokens: number): { body: string; estimate: number } {
  const body = JSON.stringify({ model, max_tokens: maxTokens, messages: [{ role: 'user', content: 'count me' }] });
  return { body, estimate: Math.ceil(Buffer.byteLength(body) / 3) + 3 + maxTokens };
}

export const RATE_HEADERS = [
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
] as const;

/** The x-ratelimit-* and retry-after headers of an answer (absent ones left out). */
export function rateHeadersOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of [...RATE_HEADERS, 'retry-after']) {
    const v = res.headers.get(h);
    if (v !== null) out[h] = v;
  }
  return out;
}
