import { Button, Input, Modal, QRCode, Spin, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSubmit } from '../../lib/useSubmit';
import { enableTwoFactor, startSetup, type TwoFactorSetup } from './api';
import { BackupCodes } from './BackupCodes';

interface Props {
  open: boolean;
  account: string;
  onClose: () => void;
  onEnabled: () => void;
}

/** Setup: QR code and manual key, the first code to turn it on, then the backup codes once. */
export function SetupModal({ open, account, onClose, onEnabled }: Props) {
  const { t } = useTranslation('twofa');
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [code, setCode] = useState('');
  const [done, setDone] = useState(false);
  const { loading, run } = useSubmit();

  useEffect(() => {
    if (!open) return;
    setSetup(null);
    setCode('');
    setDone(false);
    startSetup()
      .then(setSetup)
      .catch(() => onClose());
  }, [open, onClose]);

  const verify = () =>
    void run(async () => {
      await enableTwoFactor(code.trim());
      setDone(true);
      onEnabled();
    });

  return (
    <Modal
      open={open}
      title={done ? t('backup.title') : t('setup.title')}
      onCancel={onClose}
      maskClosable={false}
      destroyOnHidden
      footer={
        done ? (
          <Button type="primary" onClick={onClose} data-testid="twofa-setup-done">
            {t('backup.done')}
          </Button>
        ) : (
          <Button
            type="primary"
            loading={loading}
            disabled={!/^\d{6}$/.test(code.trim())}
            onClick={verify}
            data-testid="twofa-setup-verify"
          >
            {t('setup.confirm')}
          </Button>
        )
      }
      data-testid="twofa-setup-modal"
    >
      {!setup ? (
        <Spin />
      ) : done ? (
        <BackupCodes codes={setup.backup_codes} account={account} />
      ) : (
        <div data-testid="twofa-setup">
          <Typography.Paragraph strong>{t('setup.step1')}</Typography.Paragraph>
          <div style={{ display: 'flex', justifyContent: 'center', marginBottom: 12 }}>
            <QRCode value={setup.qr_code_data} size={176} bordered={false} data-testid="twofa-qr" />
          </div>
          <Typography.Paragraph type="secondary" style={{ marginBottom: 4 }}>
            {t('setup.manual')}
          </Typography.Paragraph>
          <Typography.Paragraph copyable={{ text: setup.secret }} code data-testid="twofa-secret">
            {setup.secret}
          </Typography.Paragraph>
          <Typography.Paragraph strong>{t('setup.step2')}</Typography.Paragraph>
          <Input
            value={code}
            onChange={(e) => setCode(e.target.value)}
            onPressEnter={verify}
            placeholder={t('setup.codePh')}
            maxLength={6}
            inputMode="numeric"
            autoComplete="one-time-code"
            data-testid="twofa-setup-code"
          />
        </div>
      )}
    </Modal>
  );
}
