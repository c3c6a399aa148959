import { ratioToPricePerMillion } from '@tollway/shared';
import { App, Form, Input, Modal, Radio, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { parseCell, short, type BatchType, type BatchValues } from './model';

interface Props {
  open: boolean;
  /** The models the values go to (shown as a count, or by name when there is one). */
  models: string[];
  initialType?: BatchType;
  onCancel: () => void;
  onApply: (v: BatchValues) => void | Promise<unknown>;
}

type Field = 'ratio' | 'completion' | 'price';

/**
 * Sets the model ratio, both ratios or a fixed price for several models: both-ratios needs both
 * values, the others a fill value, every value must be a number and a fixed price cannot be 0.
 */
export function BatchSetModal({ open, models, initialType = 'ratio', onCancel, onApply }: Props) {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const [type, setType] = useState<BatchType>(initialType);
  const [text, setText] = useState<Record<Field, string>>({ ratio: '', completion: '', price: '' });
  const [bad, setBad] = useState<Field[]>([]);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!open) return;
    setType(initialType);
    setText({ ratio: '', completion: '', price: '' });
    setBad([]);
  }, [open, initialType]);

  const fields: Field[] = type === 'price' ? ['price'] : type === 'both' ? ['ratio', 'completion'] : ['ratio'];

  const ok = async () => {
    const empty = fields.filter((f) => text[f].trim() === '');
    if (empty.length > 0) {
      setBad(empty);
      void message.error(t(type === 'both' ? 'batch.bothRequired' : 'batch.fillValue'));
      return;
    }
    const wrong = fields.filter((f) => parseCell(text[f]) === undefined);
    if (wrong.length > 0) {
      setBad(wrong);
      void message.error(t('validation.number'));
      return;
    }
    // A fixed price of 0 would make the model free.
    if (type === 'price' && parseCell(text.price) === 0) {
      setBad(['price']);
      void message.error(t('ratio.issue.priceZero'));
      return;
    }
    const val = (f: Field) => (fields.includes(f) ? (parseCell(text[f]) ?? null) : null);
    setBusy(true);
    try {
      await onApply({ type, ratio: val('ratio'), completion: val('completion'), price: val('price') });
    } finally {
      setBusy(false);
    }
  };

  const ratio = parseCell(text.ratio);
  const completion = parseCell(text.completion);
  const hint: Record<Field, string | undefined> = {
    ratio:
      typeof ratio === 'number' ? t('ratio.hintInput', { price: short(ratioToPricePerMillion(ratio)) }) : undefined,
    completion:
      typeof ratio === 'number' && typeof completion === 'number'
        ? t('ratio.hintOutput', { price: short(ratioToPricePerMillion(ratio) * completion) })
        : undefined,
    price: undefined,
  };

  const input = (f: Field) => (
    <Form.Item
      key={f}
      label={t(`batch.${f}`)}
      validateStatus={bad.includes(f) ? 'error' : undefined}
      extra={hint[f]}
      style={{ marginBottom: 12 }}
    >
      <Input
        value={text[f]}
        inputMode="decimal"
        prefix={f === 'price' ? '$' : undefined}
        suffix={f === 'price' ? <Typography.Text type="secondary">{t('ratio.perCall')}</Typography.Text> : undefined}
        onChange={(e) => {
          setText((s) => ({ ...s, [f]: e.target.value }));
          setBad((b) => b.filter((x) => x !== f));
        }}
        onPressEnter={() => void ok()}
        data-testid={`batch-${f}`}
      />
    </Form.Item>
  );

  return (
    <Modal
      open={open}
      title={
        models.length === 1 ? t('batch.titleOne', { name: models[0] }) : t('batch.title', { count: models.length })
      }
      onCancel={onCancel}
      onOk={() => void ok()}
      okText={t('batch.apply')}
      cancelText={t('common:action.cancel')}
      confirmLoading={busy}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'batch-apply' }}
    >
      <Form layout="vertical" requiredMark={false} style={{ marginTop: 12 }}>
        <Form.Item label={t('batch.type')} style={{ marginBottom: 12 }}>
          <Radio.Group
            value={type}
            onChange={(e) => {
              setType(e.target.value as BatchType);
              setBad([]);
            }}
            options={(['ratio', 'both', 'price'] as const).map((v) => ({ value: v, label: t(`batch.types.${v}`) }))}
            data-testid="batch-type"
          />
        </Form.Item>
        {fields.map(input)}
      </Form>
    </Modal>
  );
}
