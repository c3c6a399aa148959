import crypto from 'node:crypto';
import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import type { ExternalAccount, ProviderSignInDeps } from './account.js';

/** The login widget's signed fields (anything else, such as our lang, is not part of the signature). */
export const TELEGRAM_FIELDS = ['id', 'first_name', 'last_name', 'username', 'photo_url', 'auth_date'] as const;
export type TelegramLogin = Partial<Record<(typeof TELEGRAM_FIELDS)[number], string>> & { hash: string };

/** How old an auth_date may be, in seconds. */
export const TELEGRAM_MAX_AGE_SECONDS = 24 * 3600;

/**
 * Telegram's login widget check: data-check-string is the received fields but hash, sorted by key, as key=value
 * lines joined by \n; the secret key is SHA-256 of the bot token; hash must be the hex HMAC-SHA-256 of the
 * string under that key. An auth_date older than a day is refused.
 */
export function verifyTelegramLogin(
  deps: ProviderSignInDeps,
  login: TelegramLogin,
  nowSeconds = Math.floor(Date.now() / 1000),
): ExternalAccount {
  const botToken = deps.options.get('TelegramBotToken');
  if (!botToken)
    throw coded(
      ErrorCode.OAuthNotConfigured,
      'Telegram login is enabled but TelegramBotToken is not set; contact the administrator',
      {
        provider: 'Telegram',
        settings: 'TelegramBotToken',
      },
    );
  const checkString = TELEGRAM_FIELDS.filter((k) => login[k] !== undefined)
    .sort()
    .map((k) => `${k}=${login[k]}`)
    .join('\n');
  const key = crypto.createHash('sha256').update(botToken).digest();
  const expected = crypto.createHmac('sha256', key).update(checkString).digest();
  const given = /^[0-9a-f]{64}$/i.test(login.hash) ? Buffer.from(login.hash, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
    throw coded(
      ErrorCode.TelegramSignatureInvalid,
      'Telegram login data is not signed by the bot: sign in with Telegram again',
    );
  }
  const authDate = Number(login.auth_date);
  if (!Number.isInteger(authDate) || nowSeconds - authDate > TELEGRAM_MAX_AGE_SECONDS) {
    throw coded(ErrorCode.TelegramLoginExpired, 'Telegram login data has expired: sign in with Telegram again');
  }
  if (!login.id) throw coded(ErrorCode.OAuthUserNoId, 'Telegram login data has no user id', { provider: 'Telegram' });
  const name = [login.first_name, login.last_name].filter(Boolean).join(' ');
  return { id: login.id, displayName: name || login.username || '', email: '' };
}
