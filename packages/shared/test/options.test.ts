import { describe, expect, it } from 'vitest';
import {
  abbreviateNumber,
  defaultOptionValues,
  normalizeOptionValue,
  optionDefs,
  optionKeys,
  renderQuota,
} from '../src/index.js';

describe('option table', () => {
  it('holds every key with a default that passes its own validation', () => {
    const defaults = defaultOptionValues();
    for (const key of optionKeys) {
      const res = normalizeOptionValue(key, defaults[key]);
      expect(res, key).toEqual({ ok: true, value: defaults[key] });
    }
    expect(optionKeys.length).toBeGreaterThanOrEqual(140);
  });

  it('includes the keys of all three spec documents', () => {
    for (const key of [
      'PasswordLoginEnabled',
      'oidc.well_known',
      'LinuxDOMinimumTrustLevel',
      'TopupGroupRatio',
      'CheckInMaxQuota',
      'RebatePercentage',
      'ModelRequestRateLimitDurationMinutes',
      'gemini.thinking_adapter_budget_tokens_percentage',
      'claude.default_max_tokens',
      'global.auto_retry_status_codes',
      'general_setting.ping_interval_seconds',
      'StreamCacheQueueLength',
      'fallback_completion_ratio',
      'DataExportDefaultTime',
    ]) {
      expect(optionDefs, key).toHaveProperty([key]);
    }
  });

  it('normalises and rejects by kind', () => {
    expect(normalizeOptionValue('RetryTimes', 3)).toEqual({ ok: true, value: '3' });
    expect(normalizeOptionValue('Price', ' 7.50 ')).toEqual({ ok: true, value: '7.5' });
    expect(normalizeOptionValue('RegisterEnabled', false)).toEqual({ ok: true, value: 'false' });
    expect(normalizeOptionValue('GroupRatio', { default: 1 })).toEqual({ ok: true, value: '{"default":1}' });
    expect(normalizeOptionValue('GroupRatio', { default: -1 })).toMatchObject({ ok: false });
    expect(normalizeOptionValue('Price', '')).toMatchObject({ ok: false, message: 'Price must be a number' });
    expect(normalizeOptionValue('gemini.thinking_adapter_budget_tokens_percentage', 0.001)).toMatchObject({
      ok: false,
    });
  });
});

describe('quota display', () => {
  it('abbreviates with k from ten thousand, then M and B', () => {
    expect(abbreviateNumber(9999)).toBe('9999');
    expect(abbreviateNumber(10000)).toBe('10k');
    expect(abbreviateNumber(1_234_567)).toBe('1.23M');
    expect(abbreviateNumber(2_000_000_000)).toBe('2B');
  });

  it('renders currency from quota per unit, falling back to 500000', () => {
    expect(renderQuota(500000, { displayInCurrency: true })).toBe('$1.00');
    expect(renderQuota(250000, { displayInCurrency: true, quotaPerUnit: 0 })).toBe('$0.50');
    expect(renderQuota(1500, { displayInCurrency: true, quotaPerUnit: 1000 })).toBe('$1.50');
    expect(renderQuota(123456, { displayInCurrency: false })).toBe('123.46k');
  });
});
