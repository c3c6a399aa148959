import type { ErrorParams } from '@tollway/shared';
import i18n, { loadTexts } from '../i18n';

/** What a refusal carries: the server's English message, and a stable code with its values when it has one. */
export interface Refusal {
  message: string;
  code?: string;
  params?: ErrorParams;
}

/**
 * The refusal in the viewer's language when its code has a text; the server's message otherwise. The codes' texts
 * (namespace `errors`) are fetched with the first refusal, not with the entry.
 */
export async function refusalText(r: Refusal): Promise<string> {
  if (!r.code) return r.message;
  await loadTexts(['errors']).catch((err: unknown) => console.warn('refusal texts failed to load', err));
  // A refusal whose reason is itself coded (reason_code: why the fetch settings refuse a URL) words that too.
  const reasonCode = r.params?.reason_code;
  const reason =
    typeof reasonCode === 'string'
      ? i18n.t(`errors:${reasonCode}`, { ...r.params, defaultValue: r.params?.reason })
      : r.params?.reason;
  return i18n.t(`errors:${r.code}`, {
    ...r.params,
    ...(reason !== undefined ? { reason } : {}),
    defaultValue: r.message,
  });
}
