import { describe, expect, it } from 'vitest';
import type { Channel } from '../src/features/channels/api';
import { channelFormSchema, toForm, toPayload } from '../src/features/channels/model/channelForm';

const channel = (setting: string) =>
  ({
    type: 1,
    name: 'c',
    base_url: '',
    key: '',
    openai_organization: '',
    models: 'gpt-4o-mini',
    model_mapping: '',
    group: 'default',
    priority: 0,
    weight: 0,
    auto_ban: 1,
    test_model: '',
    tag: '',
    status_code_mapping: '',
    system_prompt: '',
    param_override: '',
    setting,
    other: '',
  }) as unknown as Channel;

describe("the channel editor's RPM/TPM fields", () => {
  it('reads the limits out of the setting JSON and writes them back into it', () => {
    const form = toForm(channel('{"proxy":"http://p","tpm_limit":90000,"rpm_limit":60}'));
    expect(form).toMatchObject({
      rpm_limit: 60,
      tpm_limit: 90000,
      setting: JSON.stringify({ proxy: 'http://p' }, null, 2),
    });
    expect(JSON.parse(toPayload({ ...form, tpm_limit: 120000 }).setting!)).toEqual({
      proxy: 'http://p',
      rpm_limit: 60,
      tpm_limit: 120000,
    });
    // Cleared limits leave the setting as the operator wrote it; only limits leave it empty.
    expect(JSON.parse(toPayload({ ...form, rpm_limit: 0, tpm_limit: 0 }).setting!)).toEqual({ proxy: 'http://p' });
    const onlyLimits = toForm(channel('{"rpm_limit":5}'));
    expect(onlyLimits).toMatchObject({ setting: '', rpm_limit: 5, tpm_limit: 0 });
    expect(toPayload({ ...onlyLimits, rpm_limit: 0 }).setting).toBe('');
  });

  it('keeps a setting that is not JSON as it is, with no limits', () => {
    expect(toForm(channel('not json'))).toMatchObject({ setting: 'not json', rpm_limit: 0, tpm_limit: 0 });
  });

  it('refuses a negative or fractional limit', () => {
    const form = toForm(channel(''));
    const issues = (v: object) =>
      channelFormSchema(false)
        .safeParse({ ...form, ...v })
        .error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(issues({ rpm_limit: -1 })).toEqual(['rpm_limit: channels:validation.perMinute']);
    expect(issues({ tpm_limit: 1.5 })).toEqual(['tpm_limit: channels:validation.perMinute']);
    expect(issues({ rpm_limit: 10, tpm_limit: 1000 })).toEqual([]);
  });
});
