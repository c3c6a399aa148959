import { EyeOutlined } from '@ant-design/icons';
import { isRoot, type TwoFactorStatus } from '@tollway/shared';
import { Button, Input, Modal, Typography } from 'antd';
import { useState, type ChangeEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../../lib/api';
import { getStoredUser } from '../../../lib/storage';
import { revealChannelKey, verifySession } from '../api';
import { quietly } from '../model/useChannelActions';

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
  const [method, setMethod] = useState<'2fa' | 'password' | null>(null);
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  if (!isRoot(getStoredUser()?.role)) return null;

  const start = async () => {
    setBusy(true);
    try {
      const key = await quietly(() => revealChannelKey(channelId, true));
      if (key !== undefined) return onRevealed(key);
      const status = await quietly(() => apiGet<TwoFactorStatus>('/api/user/2fa/status'));
      setSecret('');
      setMethod(status?.enabled ? '2fa' : 'password');
    } finally {
      setBusy(false);
    }
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
      </Modal>
    </>
  );
}
