import { parseLogOther } from '@tollway/shared';
import i18n from '../i18n';
import logEvents from '../i18n/log-events';

export { refusalText, type Refusal } from './refusal-text';

// Log rows' texts load with the pages that show logs (parsing a row's fields needs the shared zod schemas).
for (const lang of ['zh', 'en'] as const) i18n.addResourceBundle(lang, 'logEvents', logEvents[lang], true, false);

/** An account-event log's text in the viewer's language from its stored fields; `content` for rows without them. */
export function logRowText(row: { content: string; other: string }): string {
  const event = parseLogOther(row.other).event;
  if (!event) return row.content;
  const key = event.kind === 'admin_quota' ? `admin_quota_${event.mode ?? 'add'}` : event.kind;
  return i18n.t(`logEvents:${key}`, { ...event, defaultValue: row.content });
}
