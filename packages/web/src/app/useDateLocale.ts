import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';

/** dayjs's name of the Chinese locale; English is dayjs's built-in default. */
const DAYJS_LOCALE = { zh: 'zh-cn', en: 'en' } as const;

/**
 * Sets dayjs's global locale (antd's date pickers take month and weekday names from it) from the UI language.
 * Set while rendering, so the pickers of the same render already read it; setting it again is harmless.
 */
export function useDateLocale(language: 'zh' | 'en'): void {
  if (dayjs.locale() !== DAYJS_LOCALE[language]) dayjs.locale(DAYJS_LOCALE[language]);
}
