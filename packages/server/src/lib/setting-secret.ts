import type { SecretBox } from './secret-box.js';

/** What administrators (and every view but the owner's own profile) see in place of a webhook secret. */
export const MASKED_SECRET = '********';

/** The JSON object of a users.setting text ({} when empty or not an object). */
export function parseSetting(raw: string | null | undefined): Record<string, unknown> {
  try {
    const v: unknown = raw ? JSON.parse(raw) : {};
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Applies `fn` to a non-empty webhook_secret of a setting text; other text is returned as it is. */
function mapSecret(raw: string | null | undefined, fn: (secret: string) => string): string {
  const text = raw ?? '';
  if (!text.includes('webhook_secret')) return text;
  const s = parseSetting(text);
  if (typeof s.webhook_secret !== 'string' || s.webhook_secret === '') return text;
  return JSON.stringify({ ...s, webhook_secret: fn(s.webhook_secret) });
}

/** The setting text with its webhook secret masked (admin views, sign-in answers). */
export const maskSettingSecret = (raw: string | null | undefined): string => mapSecret(raw, () => MASKED_SECRET);

/** The setting text with its webhook secret in plaintext (the owner's own view, sending webhooks). */
export const openSettingSecret = (raw: string | null | undefined, box: SecretBox): string =>
  mapSecret(raw, (v) => box.open(v));

/** The setting text as stored: its webhook secret sealed with CRYPTO_SECRET when set. */
export const sealSettingSecret = (raw: string | null | undefined, box: SecretBox): string =>
  mapSecret(raw, (v) => box.seal(v));
