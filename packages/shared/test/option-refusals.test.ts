import { describe, expect, it } from 'vitest';
import { defaultOptionValues, ErrorCode, normalizeOptionValue, optionKeys, optionWriteRefusal } from '../src/index.js';

describe('option refusals carry codes', () => {
  it('names the rule broken, with the values the text needs', () => {
    expect(normalizeOptionValue('NoSuchKey', '1')).toMatchObject({ ok: false, code: ErrorCode.OptionUnknown, params: { key: 'NoSuchKey' } });
    expect(normalizeOptionValue('RegisterEnabled', 'yes')).toMatchObject({ code: ErrorCode.OptionNotBool, params: { key: 'RegisterEnabled' } });
    expect(normalizeOptionValue('RetryTimes', 'x')).toMatchObject({ code: ErrorCode.OptionNotNumber });
    expect(normalizeOptionValue('RetryTimes', '1.5')).toMatchObject({ code: ErrorCode.OptionNotInteger });
    expect(normalizeOptionValue('RebatePercentage', '-1')).toMatchObject({ code: ErrorCode.OptionTooSmall, params: { key: 'RebatePercentage', min: 0 } });
    expect(normalizeOptionValue('RebatePercentage', '101')).toMatchObject({ code: ErrorCode.OptionTooLarge, params: { key: 'RebatePercentage', max: 100 } });
    expect(normalizeOptionValue('GroupRatio', '{')).toMatchObject({ code: ErrorCode.OptionNotJson, params: { key: 'GroupRatio' } });
    const invalid = normalizeOptionValue('GroupRatio', { default: -1 });
    expect(invalid).toMatchObject({ ok: false, code: ErrorCode.OptionInvalid, params: { key: 'GroupRatio' } });
    expect((invalid as { params: { reason: string } }).params.reason.length).toBeGreaterThan(0);
  });

  it('a new ModelPrice entry must be a number above 0; a stored or imported 0 still passes the value check', () => {
    for (const price of [0, -1, '1e999']) {
      const value = `{"paid":0.02,"free":${price}}`;
      expect(optionWriteRefusal('ModelPrice', value), String(price)).toMatchObject({ ok: false, code: ErrorCode.ModelPriceNotPositive, params: { model: 'free' } });
    }
    expect(optionWriteRefusal('ModelPrice', { free: 0 })).toMatchObject({ code: ErrorCode.ModelPriceNotPositive });
    expect(optionWriteRefusal('ModelPrice', '{"paid":0.02}')).toBeUndefined();
    expect(optionWriteRefusal('ModelPrice', 'not json')).toBeUndefined();
    expect(optionWriteRefusal('ModelRatio', '{"free":0}')).toBeUndefined();
    expect(normalizeOptionValue('ModelPrice', '{"free":0}')).toEqual({ ok: true, value: '{"free":0}' });
  });

  it('every default passes the write rules', () => {
    const defaults = defaultOptionValues();
    for (const key of optionKeys) expect(optionWriteRefusal(key, defaults[key]), key).toBeUndefined();
  });
});
