import { SafetyCertificateOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Modal, Tag, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { disableTwoFactor, regenerateBackupCodes, TWOFA_STATUS_KEY, useTwoFactorStatus } from './api';
import { BackupCodes } from './BackupCodes';
import { CodeModal } from './CodeModal';
import { SetupModal } from './SetupModal';
import { IconTitle } from '../IconTitle';

type Dialog = 'setup' | 'disable' | 'regenerate' | null;

/** Personal settings: two-factor sign-in on or off, backup codes left, regenerate; opens the setup when it is required. */
export function TwoFactorCard({ account }: { account: string }) {
  const { t } = useTranslation('twofa');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const status = useTwoFactorStatus();
  const [params] = useSearchParams();
  const [dialog, setDialog] = useState<Dialog>(null);
  const [freshCodes, setFreshCodes] = useState<string[] | null>(null);
  const refresh = useCallback(() => void queryClient.invalidateQueries({ queryKey: TWOFA_STATUS_KEY }), [queryClient]);
  const close = useCallback(() => setDialog(null), []);

  const s = status.data;
  const mustSetUp = s?.setup_required === true || params.get('twofa') === 'setup';
  useEffect(() => {
    if (s && !s.enabled && mustSetUp) setDialog('setup');
  }, [s, mustSetUp]);

  return (
    <Card
      title={<IconTitle icon={SafetyCertificateOutlined}>{t('card.title')}</IconTitle>}
      extra={
        s && (
          <Tag color={s.enabled ? 'green' : 'default'} data-testid="twofa-state">
            {s.enabled ? t('card.on') : t('card.off')}
          </Tag>
        )
      }
      data-testid="twofa-card"
    >
      {s?.setup_required && (
        <Alert
          type="error"
          showIcon
          title={t('card.required')}
          style={{ marginBottom: 12 }}
          data-testid="twofa-required"
        />
      )}
      {s?.locked && <Alert type="warning" showIcon title={t('card.locked')} style={{ marginBottom: 12 }} />}
      <Typography.Paragraph type="secondary">{t('card.desc')}</Typography.Paragraph>
      {s?.enabled && (
        <Typography.Paragraph data-testid="twofa-remaining">
          {t('card.remaining', { count: s.backup_codes_remaining })}
        </Typography.Paragraph>
      )}
      <Flex gap={8} wrap>
        {s && !s.enabled && (
          <Button type="primary" onClick={() => setDialog('setup')} data-testid="twofa-enable">
            {t('card.enable')}
          </Button>
        )}
        {s?.enabled && (
          <>
            <Button onClick={() => setDialog('regenerate')} data-testid="twofa-regenerate">
              {t('card.regenerate')}
            </Button>
            <Button danger onClick={() => setDialog('disable')} data-testid="twofa-disable">
              {t('card.disable')}
            </Button>
          </>
        )}
      </Flex>
      <SetupModal
        open={dialog === 'setup'}
        account={account}
        onClose={close}
        onEnabled={() => {
          void message.success(t('setup.enabled'));
          refresh();
        }}
      />
      <CodeModal
        open={dialog === 'disable'}
        title={t('disable.title')}
        hint={t('disable.hint')}
        placeholder={t('disable.codePh')}
        okText={t('disable.confirm')}
        danger
        testId="twofa-disable"
        onClose={close}
        onSubmit={async (code) => {
          await disableTwoFactor(code);
          void message.success(t('disable.done'));
          close();
          refresh();
        }}
      />
      <CodeModal
        open={dialog === 'regenerate'}
        title={t('regenerate.title')}
        hint={t('regenerate.hint')}
        placeholder={t('regenerate.codePh')}
        okText={t('regenerate.confirm')}
        testId="twofa-regenerate"
        onClose={close}
        onSubmit={async (code) => {
          setFreshCodes(await regenerateBackupCodes(code));
          void message.success(t('regenerate.done'));
          close();
          refresh();
        }}
      />
      <Modal
        open={freshCodes !== null}
        title={t('backup.title')}
        onCancel={() => setFreshCodes(null)}
        maskClosable={false}
        footer={
          <Button type="primary" onClick={() => setFreshCodes(null)} data-testid="twofa-codes-done">
            {t('backup.done')}
          </Button>
        }
      >
        {freshCodes && <BackupCodes codes={freshCodes} account={account} />}
      </Modal>
    </Card>
  );
}
