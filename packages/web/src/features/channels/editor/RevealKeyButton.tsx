import { EyeOutlined, KeyOutlined } from '@ant-design/icons';
import { isRoot, type PasskeyStatus, type TwoFactorStatus } from '@tollway/shared';
import { Button, Input, Modal, Typography } from 'antd';
import { useState, type ChangeEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../../lib/api';
import { getStoredUser } from '../../../lib/storage';
import { revealChannelKey, verifySession } from '../api';
import { quietly } from '../model/useChannelActions';
import { verifyWithPasskey } from '../../../components/passkey/api';
import { usePasskeyAction } from '../../../components/passkey/usePasskeyAction';
import { passkeySupported } from '../../../lib/passkey';
import { useStatus } from '../../../lib/status';

interface Props {
  channelId: number;
  onRevealed: (key: string) => void;
}

/**
 * Root's "show key": the server gives a channel's key only to a session verified in the last five minutes, so a
 * refused first try asks for a two-factor code (or the password when 2FA is off), verifies, and asks again.
 */
export function RevealKeyButton({ channelId, onRevealed }: Props) {
  const { t } = useTranslation('channels');
  const { t: tp } = useTranslation('passkey');
  const [method, setMethod] = useState<'2fa' | 'password' | null>(null);
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [hasPasskey, setHasPasskey] = useState(false);
  const { data: site } = useStatus();
  const passkey = usePasskeyAction();
  if (!isRoot(getStoredUser()?.role)) return null;

  const start = async () => {
    setBusy(true);
    try {
      const key = await quietly(() => revealChannelKey(channelId, true));
      if (key !== undefined) return onRevealed(key);
      const status = await quietly(() => apiGet<TwoFactorStatus>('/api/user/2fa/status'));
      const held =
        site?.passkey_login && passkeySupported()
          ? await quietly(() => apiGet<PasskeyStatus>('/api/user/passkey'))
          : undefined;
      setHasPasskey(held?.enabled === true);
      setSecret('');
      setMethod(status?.enabled ? '2fa' : 'password');
    } finally {
      setBusy(false);
    }
  };

  /** The passkey instead of the code or password: the prompt, then the key. */
  const confirmWithPasskey = async () => {
    if ((await passkey.run(verifyWithPasskey)) === undefined) return;
    const key = await quietly(() => revealChannelKey(channelId));
    if (key === undefined) return;
    setMethod(null);
    onRevealed(key);
  };

  const confirm = async () => {
    setBusy(true);
    try {
      const verified = await quietly(() =>
        verifySession(
          method === '2fa' ? { method: '2fa', code: secret.trim() } : { method: 'password', password: secret },
        ),
      );
      if (verified === undefined) return;
      const key = await quietly(() => revealChannelKey(channelId));
      if (key === undefined) return;
      setMethod(null);
      onRevealed(key);
    } finally {
      setBusy(false);
    }
  };

  const input = {
    value: secret,
    onChange: (e: ChangeEvent<HTMLInputElement>) => setSecret(e.target.value),
    onPressEnter: () => void confirm(),
    'data-testid': 'channel-key-verify-input',
  };
  return (
    <>
      <Button
        size="small"
        type="link"
        icon={<EyeOutlined />}
        loading={busy && method === null}
        onClick={() => void start()}
        data-testid="channel-key-show"
      >
        {t('editor.showKey')}
      </Button>
      <Modal
        open={method !== null}
        title={t('editor.verifyTitle')}
        okText={t('editor.verifyOk')}
        confirmLoading={busy}
        okButtonProps={{ disabled: secret.trim() === '', 'data-testid': 'channel-key-verify-ok' } as never}
        onOk={() => void confirm()}
        onCancel={() => setMethod(null)}
        destroyOnHidden
      >
        <Typography.Paragraph type="secondary">
          {method === '2fa' ? t('editor.verifyCodeHint') : t('editor.verifyPasswordHint')}
        </Typography.Paragraph>
        {method === '2fa' ? (
          <Input {...input} placeholder={t('editor.verifyCode')} autoComplete="one-time-code" />
        ) : (
          <Input.Password {...input} placeholder={t('editor.verifyPassword')} autoComplete="current-password" />
        )}
        {hasPasskey && (
          <Button
            block
            icon={<KeyOutlined />}
            loading={passkey.busy}
            onClick={() => void confirmWithPasskey()}
            style={{ marginTop: 12 }}
            data-testid="channel-key-verify-passkey"
          >
            {tp('verify.usePasskey')}
          </Button>
        )}
      </Modal>
    </>
  );
}
