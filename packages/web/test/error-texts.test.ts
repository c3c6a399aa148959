import { ADMIN_QUOTA_MODES, ErrorCode, LOG_EVENT_KINDS, TASK_FAIL_REASONS } from '@tollway/shared';
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

  /** Values that are English text (a schema's reason, a regular expression engine's message): only the en text shows them. */
  const ENGLISH_ONLY: Partial<Record<ErrorCode, string[]>> = {
    [ErrorCode.InvalidInput]: ['reason'],
    [ErrorCode.SensitiveRegexInvalid]: ['detail'],
  };

  it('zh and en texts of a code use the same values, except English ones only the en text shows', () => {
    for (const code of Object.values(ErrorCode)) {
      const english = ENGLISH_ONLY[code] ?? [];
      expect(placeholders(errors.zh[code]), code).toEqual(
        placeholders(errors.en[code]).filter((p) => !english.includes(p!)),
      );
    }
  });

  it.each(LANGUAGES)(
    'every log event kind (each balance-change mode) and task failure reason has a %s text',
    (lang) => {
      const kinds = LOG_EVENT_KINDS.flatMap((k) =>
        k === 'admin_quota' ? ADMIN_QUOTA_MODES.map((m) => `${k}_${m}`) : [k],
      );
      const keys = [...kinds, ...TASK_FAIL_REASONS.map((r) => `task_reason_${r}`)].sort();
      expect(Object.keys(logEvents[lang]).sort()).toEqual(keys);
      for (const [key, text] of Object.entries(logEvents[lang]))
        expect(placeholders(text), key).toEqual(placeholders(logEvents.en[key as keyof typeof logEvents.en]));
    },
  );
});
