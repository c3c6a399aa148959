import { useQueryClient } from '@tanstack/react-query';
import { App, InputNumber, Typography } from 'antd';
import { DEFAULT_QUOTA_PER_UNIT } from '@tollway/shared';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiPost } from '../../lib/api';
import { useStatus } from '../../lib/status';
import { useSubmit } from '../../lib/useSubmit';
import { SELF_KEY, useQuotaFormat } from '../../lib/self';
import { ActionModal } from '../../components/ActionModal';

/** Moves invite rewards to the balance: POST /api/user/aff_transfer {quota}; at least one quota unit. */
export function TransferModal({ open, available, onClose }: { open: boolean; available: number; onClose: () => void }) {
  const { t } = useTranslation(['me', 'common']);
  const { message } = App.useApp();
  const { data: status } = useStatus();
  const fmt = useQuotaFormat();
  const queryClient = useQueryClient();
  const minimum = status?.quota_per_unit && status.quota_per_unit > 0 ? status.quota_per_unit : DEFAULT_QUOTA_PER_UNIT;
  const [amount, setAmount] = useState<number | null>(available);
  const [error, setError] = useState<string | null>(null);
  const { loading, run } = useSubmit();
  useEffect(() => {
    if (open) {
      setAmount(available);
      setError(null);
    }
  }, [open, available]);

  const submit = async () => {
    const quota = Math.floor(Number(amount ?? 0));
    if (quota < minimum) return setError(t('invite.minimum', { amount: fmt(minimum) }));
    if (quota > available) return setError(t('invite.tooMuch'));
    setError(null);
    await run(async () => {
      await apiPost('/api/user/aff_transfer', { quota });
      void message.success(t('invite.success'));
      void queryClient.invalidateQueries({ queryKey: SELF_KEY });
      onClose();
    });
  };

  return (
    <ActionModal
      open={open}
      title={t('invite.transferTitle')}
      okText={t('common:action.confirm')}
      okTestid="me-transfer-submit"
      loading={loading}
      onOk={submit}
      onClose={onClose}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{t('invite.available', { amount: fmt(available) })}</Typography.Paragraph>
      <Typography.Text>{t('invite.amount')}</Typography.Text>
      <InputNumber
        style={{ width: '100%', marginTop: 6 }}
        min={0}
        step={minimum}
        precision={0}
        value={amount}
        onChange={(v) => setAmount(v)}
        status={error ? 'error' : undefined}
        data-testid="me-transfer-amount"
      />
      <div style={{ marginTop: 6, minHeight: 22 }}>
        {error ? (
          <Typography.Text type="danger" data-testid="me-transfer-error">
            {error}
          </Typography.Text>
        ) : (
          <Typography.Text type="secondary">
            {t('invite.amountHint', { amount: fmt(Number(amount ?? 0)) })}
          </Typography.Text>
        )}
      </div>
    </ActionModal>
  );
}
