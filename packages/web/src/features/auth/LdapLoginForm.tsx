import { ApartmentOutlined } from '@ant-design/icons';
import { CredentialsForm } from './CredentialsForm';

/** Directory (LDAP / Active Directory) username and password; POST /api/user/login/ldap. */
export function LdapLoginForm({ onSuccess }: { onSuccess: (user: unknown) => void }) {
  return (
    <CredentialsForm
      endpoint="/api/user/login/ldap"
      formTestid="ldap-login-form"
      texts="ldap"
      testid="ldap"
      userIcon={<ApartmentOutlined />}
      onSuccess={(user) => onSuccess(user)}
    />
  );
}
