import { InputNumber, Modal, Typography, type ButtonProps } from 'antd';
import { renderQuota } from '@tollway/shared';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../lib/status';

interface Props {
  open: boolean;
  /** The user's quota before the change; undefined while it loads. */
  current: number | undefined;
  username?: string;
  confirmLoading?: boolean;
  onCancel: () => void;
  /** Receives the new total (current + delta) and the change itself. */
  onOk: (newQuota: number, delta: number) => void;
}

/** Adds (or with a negative number, removes) quota; shows old + delta = new. */
export function AddQuotaModal({ open, current, username, confirmLoading, onCancel, onOk }: Props) {
  const { t } = useTranslation('users');
  const { data: status } = useStatus();
  const [delta, setDelta] = useState<number | null>(null);
  useEffect(() => {
    if (open) setDelta(null);
  }, [open]);

  const base = current ?? 0;
  const next = base + (delta ?? 0);
  const money = (n: number) =>
    renderQuota(n, { displayInCurrency: true, quotaPerUnit: status?.quota_per_unit, digits: 2 });

  return (
    <Modal
      open={open}
      title={username ? t('quota.titleFor', { name: username }) : t('quota.title')}
      onCancel={onCancel}
      onOk={() => onOk(next, delta ?? 0)}
      okText={t('common:action.confirm')}
      cancelText={t('common:action.cancel')}
      okButtonProps={
        { disabled: !delta || current === undefined || next < 0, 'data-testid': 'add-quota-ok' } as ButtonProps
      }
      confirmLoading={confirmLoading}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{t('quota.hint')}</Typography.Paragraph>
      <InputNumber
        data-testid="add-quota-input"
        style={{ width: '100%' }}
        value={delta}
        precision={0}
        step={500000}
        placeholder={t('quota.placeholder')}
        onChange={(v) => setDelta(typeof v === 'number' ? v : null)}
        onPressEnter={() => delta && current !== undefined && next >= 0 && onOk(next, delta)}
        autoFocus
      />
      <Typography.Paragraph data-testid="add-quota-preview" style={{ marginTop: 12, marginBottom: 0 }}>
        {t('quota.preview', { old: base, delta: delta ?? 0, next })}
        <Typography.Text type="secondary">{` (${money(base)} ${(delta ?? 0) < 0 ? '−' : '+'} ${money(Math.abs(delta ?? 0))} = ${money(next)})`}</Typography.Text>
      </Typography.Paragraph>
      {next < 0 ? (
        <Typography.Text type="danger" data-testid="add-quota-negative">
          {t('quota.negative')}
        </Typography.Text>
      ) : null}
    </Modal>
  );
}
