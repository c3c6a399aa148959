import { describe, expect, it } from 'vitest';
import {
  canAccessOption,
  HTML_OPTION_KEYS,
  OPERATION_OPTION_KEYS,
  optionAccess,
  optionAliasKeys,
  optionDefs,
  optionKeys,
  ROOT_ONLY_OPTION_KEYS,
  Role,
  SECRET_OPTION_KEYS,
} from '../src/index.js';

describe('who may read and write each option', () => {
  it('classifies every option key: a new key must be put in a group', () => {
    const unclassified = optionKeys.filter((k) => optionAccess(k) === undefined);
    expect(unclassified).toEqual([]);
  });

  it('puts no key both in the operation settings and in a root-only group', () => {
    expect(OPERATION_OPTION_KEYS.filter((k) => ROOT_ONLY_OPTION_KEYS.has(k))).toEqual([]);
    expect(new Set(OPERATION_OPTION_KEYS).size).toBe(OPERATION_OPTION_KEYS.length);
  });

  it('keeps every secret, the sign-in, mail, address, payment, HTML and key-carrying link keys for root', () => {
    const secrets = optionKeys.filter((k) => (optionDefs[k] as { secret?: boolean }).secret === true);
    expect(secrets.length).toBeGreaterThan(10);
    expect([...SECRET_OPTION_KEYS].sort()).toEqual(secrets.sort());
    for (const k of [
      ...secrets,
      ...HTML_OPTION_KEYS,
      'ServerAddress',
      'GitHubClientId',
      'oidc.well_known',
      'SMTPServer',
      'PayAddress',
      'StripePriceId',
      'fetch_setting.allow_private_ip',
      'TwoFactorRequiredForAdmins',
      'RegisterEnabled',
      'ChatLink',
      'Chats',
    ])
      expect(optionAccess(k), k).toBe('root');
    for (const k of ['ModelRatio', 'GroupRatio', 'QuotaForNewUser', 'SystemName', 'RetryTimes', 'GroupRateLimits'])
      expect(optionAccess(k), k).toBe('admin');
  });

  it('answers new-api alias names as their option', () => {
    for (const alias of optionAliasKeys) expect(optionAccess(alias), alias).toBe('admin');
    expect(optionAccess('NoSuchOption')).toBeUndefined();
  });

  it('lets root use every key, an administrator the operation keys, nobody else any', () => {
    for (const k of optionKeys) {
      expect(canAccessOption(Role.Root, k)).toBe(true);
      expect(canAccessOption(Role.Admin, k), k).toBe(optionAccess(k) === 'admin');
      expect(canAccessOption(Role.Common, k)).toBe(false);
    }
    expect(canAccessOption(Role.Admin, 'NoSuchOption')).toBe(false);
  });
});
