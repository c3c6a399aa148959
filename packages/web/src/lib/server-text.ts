import { parseLogOther, type LogEvent } from '@tollway/shared';
import i18n from '../i18n';
import logEvents from '../i18n/log-events';

export { refusalText, type Refusal } from './refusal-text';

// Log rows' texts load with the pages that show logs (parsing a row's fields needs the shared zod schemas).
for (const lang of ['zh', 'en'] as const) i18n.addResourceBundle(lang, 'logEvents', logEvents[lang], true, false);

/** The text key of an event: admin_quota per mode. */
const keyOf = (event: LogEvent) => (event.kind === 'admin_quota' ? `admin_quota_${event.mode ?? 'add'}` : event.kind);

/**
 * A log row's text in the viewer's language from its stored event (account events, tasks, the gateway's error rows);
 * `content` for rows without one. A refunded task's reason is the gateway's (by code) or the upstream's own text;
 * an upstream's error keeps its own text (the content) inside the viewer's words. `formatQuota` renders an event's
 * quota as money or tokens (the `amount` of events stored without one).
 */
export function logRowText(row: { content: string; other: string }, formatQuota?: (quota: number) => string): string {
  const event = parseLogOther(row.other).event;
  if (!event) return row.content;
  const values: Record<string, unknown> = { ...event, message: row.content };
  // Events the server stored without a rendered amount show their quota as the rest of the console does.
  if (event.amount === undefined && event.quota !== undefined && formatQuota) values.amount = formatQuota(event.quota);
  if (event.kind === 'task_refund')
    values.reason = event.reason_code ? i18n.t(`logEvents:task_reason_${event.reason_code}`) : event.reason;
  return i18n.t(`logEvents:${keyOf(event)}`, { ...values, defaultValue: row.content });
}
