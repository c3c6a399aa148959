import type { OptionsService } from '../../core/options/service.js';
import type { WarningUser } from './store.js';

/** Where and below which balance a user is warned. */
export type WarningTarget =
  { threshold: number; via: 'email'; to: string } | { threshold: number; via: 'webhook'; url: string; secret: string };

function storedSetting(raw: string): Record<string, unknown> {
  try {
    const v: unknown = raw ? JSON.parse(raw) : {};
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/**
 * The user's warning threshold: their quota_warning_threshold when their setting has one, else the
 * QuotaRemindThreshold option. 0 or less means no warnings.
 */
export function warningThreshold(user: WarningUser, options: OptionsService): number {
  const own = storedSetting(user.setting).quota_warning_threshold;
  const n = typeof own === 'number' ? own : typeof own === 'string' && own.trim() !== '' ? Number(own) : NaN;
  return Number.isFinite(n) ? n : options.num('QuotaRemindThreshold');
}

/**
 * The user's threshold and destination (notify_type webhook: webhook_url signed with webhook_secret; else
 * e-mail to notification_email or the account's address), or undefined when they get no warnings.
 */
export function warningTarget(user: WarningUser, options: OptionsService): WarningTarget | undefined {
  const threshold = warningThreshold(user, options);
  if (!(threshold > 0)) return undefined;
  const s = storedSetting(user.setting);
  if (s.notify_type === 'webhook') {
    const url = text(s.webhook_url);
    // The secret may be sealed at rest (CRYPTO_SECRET); it is opened only when a warning is about to be sent.
    const secret = typeof s.webhook_secret === 'string' ? options.secretBox.open(s.webhook_secret) : '';
    return url ? { threshold, via: 'webhook', url, secret } : undefined;
  }
  const to = text(s.notification_email) || user.email.trim();
  return to ? { threshold, via: 'email', to } : undefined;
}
