import type { OptionsService } from '../../core/options/service.js';
import { SessionOrigins } from '../auth/session-origin.js';
import type { SignInSwitch } from '../auth/sign-in-switches.js';

/** Milliseconds per second, for the timeout option. */
const MS = 1000;

/** The LDAP options as the directory client reads them. */
export interface LdapSettings {
  url: string;
  startTls: boolean;
  caCert: string;
  skipVerify: boolean;
  timeoutMs: number;
  bindDn: string;
  bindPassword: string;
  baseDn: string;
  userFilter: string;
  usernameAttribute: string;
  emailAttribute: string;
  displayNameAttribute: string;
  groupAttribute: string;
  groupSearchBaseDn: string;
  groupSearchFilter: string;
  disabledFilter: string;
}

export function ldapSettingsOf(o: OptionsService): LdapSettings {
  const t = (k: Parameters<OptionsService['get']>[0]) => o.get(k).trim();
  return {
    url: t('LDAPServerURL'),
    startTls: o.bool('LDAPStartTLS'),
    caCert: t('LDAPTLSCACert'),
    skipVerify: o.bool('LDAPTLSSkipVerify'),
    timeoutMs: o.num('LDAPTimeoutSeconds') * MS,
    bindDn: t('LDAPBindDN'),
    bindPassword: o.get('LDAPBindPassword'),
    baseDn: t('LDAPBaseDN'),
    userFilter: t('LDAPUserFilter'),
    usernameAttribute: t('LDAPUsernameAttribute') || 'uid',
    emailAttribute: t('LDAPEmailAttribute'),
    displayNameAttribute: t('LDAPDisplayNameAttribute'),
    groupAttribute: t('LDAPGroupAttribute'),
    groupSearchBaseDn: t('LDAPGroupSearchBaseDN'),
    groupSearchFilter: t('LDAPGroupSearchFilter'),
    disabledFilter: t('LDAPDisabledFilter'),
  };
}

/** The options a sign-in cannot do without, by name ([] when complete). A service account needs its password. */
export function missingLdapSettings(s: LdapSettings): string[] {
  const missing: string[] = [];
  if (!s.url) missing.push('LDAPServerURL');
  if (!s.baseDn) missing.push('LDAPBaseDN');
  if (!s.userFilter) missing.push('LDAPUserFilter');
  if (s.bindDn && !s.bindPassword) missing.push('LDAPBindPassword');
  return missing;
}

/** LDAPEnabled switched off ends every directory session at once (src/sign-in-switches.ts). */
export const LDAP_SIGN_IN_SWITCH: SignInSwitch = { option: 'LDAPEnabled', origin: SessionOrigins.ldap };
