import type { OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';

const LDAP: OptionKey[] = [
  'LDAPEnabled',
  'LDAPAutoRegister',
  'LDAPGroupRequired',
  'LDAPServerURL',
  'LDAPStartTLS',
  'LDAPTLSSkipVerify',
  'LDAPTLSCACert',
  'LDAPTimeoutSeconds',
  'LDAPBindDN',
  'LDAPBindPassword',
  'LDAPBaseDN',
  'LDAPUserFilter',
  'LDAPUsernameAttribute',
  'LDAPEmailAttribute',
  'LDAPDisplayNameAttribute',
  'LDAPGroupAttribute',
  'LDAPGroupSearchBaseDN',
  'LDAPGroupSearchFilter',
  'LDAPGroupMapping',
  'LDAPRoleMapping',
  'LDAPDisabledFilter',
  'LDAPRevalidateSeconds',
  'LDAPDisableRemovedUsers',
];

/** Directory (LDAP / Active Directory) sign-in: server, service account, search, groups (docs/operating/ldap.md). */
export function LdapSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="ldap" title={t('section.ldap.title')} description={t('section.ldap.desc')} keys={LDAP}>
      <OptionField k="LDAPEnabled" />
      <OptionField k="LDAPAutoRegister" />
      <OptionField k="LDAPGroupRequired" />
      <OptionField k="LDAPServerURL" placeholder="ldaps://dc1.example.com:636" />
      <OptionField k="LDAPTimeoutSeconds" min={1} max={120} />
      <OptionField k="LDAPStartTLS" />
      <OptionField k="LDAPTLSSkipVerify" />
      <OptionField k="LDAPTLSCACert" type="textarea" placeholder="-----BEGIN CERTIFICATE-----" />
      <OptionField k="LDAPBindDN" placeholder="cn=tollway,ou=services,dc=example,dc=com" />
      <OptionField k="LDAPBindPassword" />
      <OptionField k="LDAPBaseDN" placeholder="ou=people,dc=example,dc=com" />
      <OptionField k="LDAPUserFilter" />
      <OptionField k="LDAPUsernameAttribute" span="third" />
      <OptionField k="LDAPEmailAttribute" span="third" />
      <OptionField k="LDAPDisplayNameAttribute" span="third" />
      <OptionField k="LDAPGroupAttribute" span="third" />
      <OptionField k="LDAPGroupSearchBaseDN" span="third" placeholder="ou=groups,dc=example,dc=com" />
      <OptionField k="LDAPGroupSearchFilter" span="third" />
      <OptionField k="LDAPGroupMapping" />
      <OptionField k="LDAPRoleMapping" />
      <OptionField k="LDAPDisabledFilter" />
      <OptionField k="LDAPRevalidateSeconds" min={30} max={86400} />
      <OptionField k="LDAPDisableRemovedUsers" span="full" />
    </SettingsSection>
  );
}
