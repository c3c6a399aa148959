import { UserOutlined } from '@ant-design/icons';
import { CredentialsForm } from './CredentialsForm';
import { DEFAULT_ROOT } from './loginValues';

/** Username-or-email and password; POST /api/user/login. */
export function LoginForm({ onSuccess }: { onSuccess: (user: unknown, defaultCredentials: boolean) => void }) {
  return (
    <CredentialsForm
      endpoint="/api/user/login"
      formTestid="login-form"
      texts="login"
      testid="login"
      userIcon={<UserOutlined />}
      onSuccess={(user, sent) =>
        onSuccess(user, sent.username === DEFAULT_ROOT.username && sent.password === DEFAULT_ROOT.password)
      }
    />
  );
}
