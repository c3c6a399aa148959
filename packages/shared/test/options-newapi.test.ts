import { describe, expect, it } from 'vitest';
import {
  defaultOptionValues,
  linkedOptionUpdates,
  settleStoredOptions,
  normalizeOptionValue,
  quotaDisplayType,
  resolveOptionKey,
  statusCodeRulesError,
  type OptionKey,
} from '../src/index.js';

describe("new-api's option keys", () => {
  it('status-code rules take codes and inclusive ranges between 100 and 599', () => {
    for (const ok of ['', '401', '401, 403,500-599', '100-199,300-399,401-407', '429 - 429'])
      expect(statusCodeRulesError(ok), ok).toBeUndefined();
    for (const bad of ['99', '600', '500-400', 'abc', '401,,x', '4011', '500-'])
      expect(statusCodeRulesError(bad)?.message, bad).toMatch(/status code rule/);
    expect(statusCodeRulesError('401, 4011')).toMatchObject({
      code: 'status_code_rule_invalid',
      params: { rule: '4011', min: 100, max: 599 },
    });
  });

  it('checkin_setting.* name the CheckIn* options; other names name nothing', () => {
    expect(resolveOptionKey('checkin_setting.enabled')).toBe('CheckInEnabled');
    expect(resolveOptionKey('checkin_setting.min_quota')).toBe('CheckInQuota');
    expect(resolveOptionKey('checkin_setting.max_quota')).toBe('CheckInMaxQuota');
    expect(resolveOptionKey('CheckInQuota')).toBe('CheckInQuota');
    expect(resolveOptionKey('checkin_setting.other')).toBeUndefined();
    expect(resolveOptionKey('toString')).toBeUndefined();
    expect(normalizeOptionValue('checkin_setting.max_quota', 5000)).toEqual({ ok: true, value: '5000' });
    expect(normalizeOptionValue('checkin_setting.enabled', 'on')).toEqual({
      ok: false,
      message: 'checkin_setting.enabled must be true or false',
      code: 'option_not_bool',
      params: { key: 'checkin_setting.enabled' },
    });
  });

  it('the quota display type and DisplayInCurrencyEnabled follow each other', () => {
    const values: Partial<Record<OptionKey, string>> = {
      DisplayInCurrencyEnabled: 'true',
      'general_setting.quota_display_type': 'CNY',
    };
    const current = (k: OptionKey) => values[k] ?? '';
    expect(linkedOptionUpdates('general_setting.quota_display_type', 'TOKENS', current)).toEqual([
      ['DisplayInCurrencyEnabled', 'false'],
    ]);
    expect(linkedOptionUpdates('general_setting.quota_display_type', 'USD', current)).toEqual([]);
    expect(linkedOptionUpdates('DisplayInCurrencyEnabled', 'false', current)).toEqual([
      ['general_setting.quota_display_type', 'TOKENS'],
    ]);
    // Turning currency on keeps a currency type, and turns tokens into dollars.
    expect(linkedOptionUpdates('DisplayInCurrencyEnabled', 'true', current)).toEqual([]);
    values['general_setting.quota_display_type'] = 'TOKENS';
    expect(linkedOptionUpdates('DisplayInCurrencyEnabled', 'true', current)).toEqual([
      ['general_setting.quota_display_type', 'USD'],
    ]);
    expect(linkedOptionUpdates('SystemName', 'x', current)).toEqual([]);
    expect(quotaDisplayType(false, 'CNY')).toBe('TOKENS');
    expect(quotaDisplayType(true, 'TOKENS')).toBe('USD');
    expect(quotaDisplayType(true, 'CUSTOM')).toBe('CUSTOM');
  });

  it('stored rows: an alias row counts unless its option has a row; a stored display type decides the currency flag', () => {
    // The caller has put each option's own row in already.
    const v = { ...defaultOptionValues(), 'general_setting.quota_display_type': 'TOKENS' };
    settleStoredOptions(v, [
      { key: 'checkin_setting.min_quota', value: '10' },
      { key: 'general_setting.quota_display_type', value: 'TOKENS' },
    ]);
    expect([v.CheckInQuota, v.DisplayInCurrencyEnabled]).toEqual(['10', 'false']);
    const w = { ...defaultOptionValues(), CheckInQuota: '20', DisplayInCurrencyEnabled: 'false' };
    settleStoredOptions(w, [
      { key: 'checkin_setting.min_quota', value: '10' },
      { key: 'CheckInQuota', value: '20' },
      { key: 'DisplayInCurrencyEnabled', value: 'false' },
    ]);
    expect([w.CheckInQuota, w['general_setting.quota_display_type']]).toEqual(['20', 'TOKENS']);
  });
});
