import { describe, expect, it } from 'vitest';
import { defaultOptionValues, ErrorCode, normalizeOptionValue, optionKeys, optionWriteRefusal } from '../src/index.js';

describe('option refusals carry codes', () => {
  it('names the rule broken, with the values the text needs', () => {
    expect(normalizeOptionValue('NoSuchKey', '1')).toMatchObject({
      ok: false,
      code: ErrorCode.OptionUnknown,
      params: { key: 'NoSuchKey' },
    });
    expect(normalizeOptionValue('RegisterEnabled', 'yes')).toMatchObject({
      code: ErrorCode.OptionNotBool,
      params: { key: 'RegisterEnabled' },
    });
    expect(normalizeOptionValue('RetryTimes', 'x')).toMatchObject({ code: ErrorCode.OptionNotNumber });
    expect(normalizeOptionValue('RetryTimes', '1.5')).toMatchObject({ code: ErrorCode.OptionNotInteger });
    expect(normalizeOptionValue('RebatePercentage', '-1')).toMatchObject({
      code: ErrorCode.OptionTooSmall,
      params: { key: 'RebatePercentage', min: 0 },
    });
    expect(normalizeOptionValue('RebatePercentage', '101')).toMatchObject({
      code: ErrorCode.OptionTooLarge,
      params: { key: 'RebatePercentage', max: 100 },
    });
    expect(normalizeOptionValue('GroupRatio', '{')).toMatchObject({
      code: ErrorCode.OptionNotJson,
      params: { key: 'GroupRatio' },
    });
  });

  it("a JSON value's own rule and a text option's check carry codes, never an English reason", () => {
    const cases: [string, unknown, ErrorCode, Record<string, unknown>][] = [
      [
        'GroupRatio',
        { default: -1 },
        ErrorCode.InputTooSmall,
        { key: 'GroupRatio', field: 'GroupRatio.default', min: 0 },
      ],
      [
        'GroupRateLimits',
        { vip: { rpm: 1, rpd: 2 } },
        ErrorCode.InputUnknownKeys,
        { field: 'GroupRateLimits.vip', keys: 'rpd' },
      ],
      ['GroupRateLimits', { vip: { rpm: 1.5 } }, ErrorCode.InputNotInteger, { field: 'GroupRateLimits.vip.rpm' }],
      ['UserUsableGroups', [1], ErrorCode.InputWrongType, { field: 'UserUsableGroups' }],
      [
        'fetch_setting.allowed_ports',
        ['80', '70000'],
        ErrorCode.FetchPortInvalid,
        { field: 'fetch_setting.allowed_ports.1' },
      ],
      ['fetch_setting.ip_list', ['10.0.0.0/33'], ErrorCode.FetchIpInvalid, { field: 'fetch_setting.ip_list.0' }],
      [
        'fetch_setting.domain_list',
        ['http://x'],
        ErrorCode.FetchDomainInvalid,
        { field: 'fetch_setting.domain_list.0' },
      ],
      ['SensitiveWords', 'ok\nregex:(', ErrorCode.SensitiveRegexInvalid, { key: 'SensitiveWords', line: 2 }],
      ['SensitiveWords', 'regex:', ErrorCode.SensitiveRegexEmpty, { line: 1 }],
      [
        'AutomaticDisableStatusCodes',
        '401,9',
        ErrorCode.StatusCodeRuleInvalid,
        { key: 'AutomaticDisableStatusCodes', rule: '9', min: 100, max: 599 },
      ],
      ['HeaderNavModules', '[1]', ErrorCode.OptionNotJsonObject, { key: 'HeaderNavModules' }],
      ['HeaderNavModules', '{', ErrorCode.OptionNotJson, { key: 'HeaderNavModules' }],
    ];
    for (const [key, value, code, params] of cases) {
      const res = normalizeOptionValue(key, value);
      expect(res, `${key} ${JSON.stringify(value)}`).toMatchObject({ ok: false, code, params: { key, ...params } });
      expect((res as { message: string }).message.startsWith(key), key).toBe(true);
    }
  });

  it('a new ModelPrice entry must be a number above 0; a stored or imported 0 still passes the value check', () => {
    for (const price of [0, -1, '1e999']) {
      const value = `{"paid":0.02,"free":${price}}`;
      expect(optionWriteRefusal('ModelPrice', value), String(price)).toMatchObject({
        ok: false,
        code: ErrorCode.ModelPriceNotPositive,
        params: { model: 'free' },
      });
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
