import { renderQuota } from '@tollway/shared';
import type { OptionsService } from '../../core/options/service.js';
import { configuredServerAddress } from '../../lib/server-address.js';
import type { WarningUser } from './store.js';

/** The body of a quota_exceed webhook (documented in README.md). */
export interface QuotaWarningPayload {
  type: 'quota_exceed';
  title: string;
  /** Plain text with the balance and threshold rendered as the console shows them. */
  content: string;
  user_id: number;
  username: string;
  /** Remaining quota and the threshold, in quota units. */
  quota: number;
  threshold: number;
  /** Unix seconds. */
  timestamp: number;
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The warning's words, shared by the e-mail and the webhook. */
export function quotaWarningPayload(
  user: WarningUser,
  threshold: number,
  options: OptionsService,
  now: number,
): QuotaWarningPayload {
  const display = {
    displayInCurrency: options.bool('DisplayInCurrencyEnabled'),
    quotaPerUnit: options.num('QuotaPerUnit'),
  };
  const remaining = renderQuota(user.quota, display);
  const limit = renderQuota(threshold, display);
  return {
    type: 'quota_exceed',
    title: `${options.get('SystemName')} quota warning`,
    content: `Your remaining quota is ${remaining}, below your warning threshold of ${limit}. Top up to keep your API calls working.`,
    user_id: user.id,
    username: user.username,
    quota: user.quota,
    threshold,
    timestamp: now,
  };
}

/** The e-mail form of the warning; links to the wallet when ServerAddress is set. */
export function quotaWarningMail(
  payload: QuotaWarningPayload,
  options: OptionsService,
): { subject: string; html: string } {
  const base = configuredServerAddress(options);
  const wallet = base ? `${base}/app/wallet` : '';
  const link = wallet ? `<p>Top up here: <a href="${escapeHtml(wallet)}">${escapeHtml(wallet)}</a></p>` : '';
  return {
    subject: payload.title,
    html: `<p>Hello ${escapeHtml(payload.username)},</p><p>${escapeHtml(payload.content)}</p>${link}<p>You get this mail once each time your quota falls below the threshold; change it under notification settings.</p>`,
  };
}
