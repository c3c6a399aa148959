import { KeyOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Popconfirm, Tag, Typography, type ButtonProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiPost } from '../../lib/api';
import { formatTime } from '../../lib/format-time';
import { passkeySupported } from '../../lib/passkey';
import { useStatus } from '../../lib/status';
import { CodeModal } from '../twofa/CodeModal';
import { useTwoFactorStatus } from '../twofa/api';
import { IconTitle } from '../IconTitle';
import { PASSKEY_STATUS_KEY, registerPasskey, removePasskey, usePasskeyStatus } from './api';
import { usePasskeyAction } from './usePasskeyAction';

/**
 * Personal settings: the user's passkey (registered or not, last used), register (with 2FA on, after a code, as
 * new-api asks), remove (after verifying with the passkey).
 */
export function PasskeyCard() {
  const { t } = useTranslation(['passkey', 'common']);
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const { data: site } = useStatus();
  const status = usePasskeyStatus();
  const twoFactor = useTwoFactorStatus();
  const { busy, run } = usePasskeyAction();
  const [verifying, setVerifying] = useState(false);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: PASSKEY_STATUS_KEY });
  const enabled = site?.passkey_login === true;
  const supported = passkeySupported();
  const s = status.data;

  const register = async () => {
    if ((await run(registerPasskey)) === undefined) return;
    void message.success(t('card.registered'));
    refresh();
  };
  const startRegister = () => {
    if (twoFactor.data?.enabled) setVerifying(true);
    else void register();
  };
  const remove = async () => {
    if ((await run(removePasskey)) === undefined) return;
    void message.success(t('card.removed'));
    refresh();
  };

  return (
    <Card
      title={<IconTitle icon={KeyOutlined}>{t('card.title')}</IconTitle>}
      extra={
        s && (
          <Tag color={s.enabled ? 'green' : 'default'} data-testid="passkey-state">
            {s.enabled ? t('card.on') : t('card.off')}
          </Tag>
        )
      }
      data-testid="passkey-card"
    >
      <Typography.Paragraph type="secondary">{t('card.desc')}</Typography.Paragraph>
      {!enabled && <Alert type="info" showIcon title={t('card.disabled')} style={{ marginBottom: 12 }} />}
      {enabled && !supported && (
        <Alert type="warning" showIcon title={t('card.unsupported')} style={{ marginBottom: 12 }} />
      )}
      {s?.enabled && (
        <Typography.Paragraph data-testid="passkey-last-used">
          {s.last_used_at
            ? t('card.lastUsed', { time: formatTime(Date.parse(s.last_used_at) / 1000) })
            : t('card.neverUsed')}
          {s.backup_state && (
            <Tag style={{ marginInlineStart: 8 }} color="blue">
              {t('card.backedUp')}
            </Tag>
          )}
        </Typography.Paragraph>
      )}
      <Flex gap={8} wrap>
        {enabled && supported && (
          <Button
            type={s?.enabled ? 'default' : 'primary'}
            loading={busy}
            onClick={startRegister}
            data-testid="passkey-register"
          >
            {s?.enabled ? t('card.replace') : t('card.register')}
          </Button>
        )}
        {s?.enabled && enabled && supported && (
          <Popconfirm
            title={t('card.removeTitle')}
            description={t('card.removeConfirm')}
            okText={t('card.remove')}
            okButtonProps={{ danger: true, 'data-testid': 'passkey-remove-confirm' } as ButtonProps}
            cancelText={t('common:action.cancel')}
            onConfirm={() => void remove()}
          >
            <Button danger loading={busy} data-testid="passkey-remove">
              {t('card.remove')}
            </Button>
          </Popconfirm>
        )}
      </Flex>
      <CodeModal
        open={verifying}
        title={t('card.verifyTitle')}
        hint={t('card.verifyHint')}
        placeholder={t('card.verifyPh')}
        okText={t('card.verifyOk')}
        testId="passkey-verify"
        onClose={() => setVerifying(false)}
        onSubmit={async (code) => {
          await apiPost('/api/verify', { method: '2fa', code });
          setVerifying(false);
          await register();
        }}
      />
    </Card>
  );
}
