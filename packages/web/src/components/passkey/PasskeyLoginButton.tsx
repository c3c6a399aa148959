import { KeyOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { passkeySupported } from '../../lib/passkey';
import { signInWithPasskey } from './api';
import { usePasskeyAction } from './usePasskeyAction';

interface Props {
  /** The pending sign-in's token: the passkey completes the second step instead of signing in afresh. */
  flowToken?: string;
  /** Called with the sign-in's answer (the user). */
  onSignedIn: (user: unknown) => void;
}

/**
 * "Sign in with a passkey" (login page: any passkey of this site, no user name) or, with a flow token, the second
 * step of a password sign-in. Hidden where the browser cannot use passkeys.
 */
export function PasskeyLoginButton({ flowToken, onSignedIn }: Props) {
  const { t } = useTranslation('passkey');
  const { busy, run } = usePasskeyAction();
  if (!passkeySupported()) return null;
  const start = async () => {
    const user = await run(() => signInWithPasskey(flowToken));
    if (user !== undefined) onSignedIn(user);
  };
  return (
    <Button
      size="large"
      block
      icon={<KeyOutlined />}
      loading={busy}
      onClick={() => void start()}
      data-testid={flowToken ? 'twofa-login-passkey' : 'login-passkey'}
    >
      {flowToken ? t('login.secondStep') : t('login.button')}
    </Button>
  );
}
