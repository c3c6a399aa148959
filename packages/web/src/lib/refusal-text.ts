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
  return i18n.t(`errors:${r.code}`, { ...r.params, defaultValue: r.message });
}
