import { parseLogOther, type ErrorParams } from '@tollway/shared';
import i18n from '../i18n';
import errors from '../i18n/errors';
import logEvents from '../i18n/log-events';

// Refusals and log rows show anywhere: their texts ship with the entry, as `common` does.
for (const lang of ['zh', 'en'] as const) {
  i18n.addResourceBundle(lang, 'errors', errors[lang], true, false);
  i18n.addResourceBundle(lang, 'logEvents', logEvents[lang], true, false);
}

/** What a refusal carries: the server's English message, and a stable code with its values when it has one. */
export interface Refusal {
  message: string;
  code?: string;
  params?: ErrorParams;
}

/** The refusal in the viewer's language when its code has a text; the server's message otherwise. */
export function refusalText(r: Refusal): string {
  if (!r.code) return r.message;
  return i18n.t(`errors:${r.code}`, { ...r.params, defaultValue: r.message });
}

/** An account-event log's text in the viewer's language from its stored fields; `content` for rows without them. */
export function logRowText(row: { content: string; other: string }): string {
  const event = parseLogOther(row.other).event;
  if (!event) return row.content;
  const key = event.kind === 'admin_quota' ? `admin_quota_${event.mode ?? 'add'}` : event.kind;
  return i18n.t(`logEvents:${key}`, { ...event, defaultValue: row.content });
}
