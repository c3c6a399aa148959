import { App, Input, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { batchSetTag } from '../api';
import { quietly } from '../model/useChannelActions';
import { ActionModal } from '../../../components/ActionModal';

interface Props {
  open: boolean;
  ids: number[];
  onClose: () => void;
  onDone: () => void;
}

/** Sets one tag on the selected channels: POST /api/channel/batch/tag. */
export function BatchTagModal({ open, ids, onClose, onDone }: Props) {
  const { t } = useTranslation('channels');
  const { message } = App.useApp();
  const [tag, setTag] = useState('');
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (open) setTag('');
  }, [open]);

  const submit = async () => {
    if (ids.length === 0) return void message.warning(t('bulk.selectFirst'));
    if (tag.trim() === '') return void message.warning(t('batchTag.empty'));
    setSaving(true);
    try {
      const n = await quietly(() => batchSetTag(ids, tag.trim()));
      if (n !== undefined) {
        void message.success(t('batchTag.done', { count: n, tag: tag.trim() }));
        onDone();
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <ActionModal
      open={open}
      title={t('batchTag.title')}
      okText={t('common:action.confirm')}
      okTestid="channels-batch-tag-ok"
      loading={saving}
      onOk={submit}
      onClose={onClose}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{t('batchTag.hint', { count: ids.length })}</Typography.Paragraph>
      <Input
        autoFocus
        value={tag}
        maxLength={64}
        placeholder={t('batchTag.placeholder')}
        onChange={(e) => setTag(e.target.value)}
        onPressEnter={() => void submit()}
        data-testid="channels-batch-tag-input"
      />
    </ActionModal>
  );
}
