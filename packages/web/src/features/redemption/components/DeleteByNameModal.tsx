import { Alert, App, Button, Flex, Input, Modal, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSubmit } from '../../../lib/useSubmit';
import { countByName, deleteByName } from '../api';

interface Props {
  open: boolean;
  onClose: () => void;
  onDeleted: () => void;
}

/** Delete by name: a non-empty name, the count queried and shown first, then an irreversible delete. */
export function DeleteByNameModal({ open, onClose, onDeleted }: Props) {
  const { t } = useTranslation('redemption');
  const { message } = App.useApp();
  const [name, setName] = useState('');
  const [counted, setCounted] = useState<{ name: string; count: number } | null>(null);
  const { loading, run } = useSubmit();

  useEffect(() => {
    if (!open) {
      setName('');
      setCounted(null);
    }
  }, [open]);

  const check = () => {
    const n = name.trim();
    if (!n) {
      void message.warning(t('byName.nameRequired'));
      return;
    }
    void run(async () => setCounted({ name: n, count: await countByName(n) }));
  };

  const remove = () =>
    void run(async () => {
      const deleted = await deleteByName(counted!.name);
      void message.success(t('toast.deletedCount', { count: deleted }));
      onDeleted();
    });

  const ready = counted !== null && counted.name === name.trim();
  return (
    <Modal
      open={open}
      onCancel={onClose}
      title={t('byName.title')}
      footer={null}
      destroyOnHidden
      data-testid="redemptions-by-name-modal"
    >
      <Typography.Paragraph>{t('byName.label')}</Typography.Paragraph>
      <Flex gap={8}>
        <Input
          value={name}
          maxLength={20}
          placeholder={t('byName.placeholder')}
          onChange={(e) => setName(e.target.value)}
          onPressEnter={check}
          data-testid="redemptions-by-name-input"
        />
        <Button loading={loading && !ready} onClick={check} data-testid="redemptions-by-name-check">
          {t('byName.check')}
        </Button>
      </Flex>
      {ready ? (
        <>
          <Alert
            style={{ marginTop: 16 }}
            type="warning"
            showIcon
            title={t('byName.count', counted)}
            description={t('byName.warning')}
            data-testid="redemptions-by-name-count"
          />
          <Flex justify="flex-end" style={{ marginTop: 16 }}>
            <Button
              danger
              type="primary"
              disabled={counted.count === 0}
              loading={loading}
              onClick={remove}
              data-testid="redemptions-by-name-confirm"
            >
              {t('byName.confirm', { count: counted.count })}
            </Button>
          </Flex>
        </>
      ) : null}
    </Modal>
  );
}
