import { ADMIN_QUOTA_MODES, ErrorCode, LOG_EVENT_KINDS } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import errors from '../src/i18n/errors';
import logEvents from '../src/i18n/log-events';

const LANGUAGES = ['zh', 'en'] as const;
/** The placeholders of a text: {{name}}. */
const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

describe('console texts of server codes', () => {
  it.each(LANGUAGES)('every error code has a %s text, and no text names a code that does not exist', (lang) => {
    const codes = Object.values(ErrorCode).sort();
    expect(Object.keys(errors[lang]).sort()).toEqual(codes);
    for (const code of codes) expect(errors[lang][code].trim(), code).not.toBe('');
  });

  it('zh and en texts of a code use the same values', () => {
    for (const code of Object.values(ErrorCode)) expect(placeholders(errors.zh[code]), code).toEqual(placeholders(errors.en[code]));
  });

  it.each(LANGUAGES)('every account-event log kind (each balance-change mode) has a %s text', (lang) => {
    const keys = LOG_EVENT_KINDS.flatMap((k) => (k === 'admin_quota' ? ADMIN_QUOTA_MODES.map((m) => `${k}_${m}`) : [k])).sort();
    expect(Object.keys(logEvents[lang]).sort()).toEqual(keys);
    for (const [key, text] of Object.entries(logEvents[lang])) expect(placeholders(text), key).toEqual(placeholders(logEvents.en[key as keyof typeof logEvents.en]));
  });
});
