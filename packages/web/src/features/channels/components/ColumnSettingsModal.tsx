import { Button, Checkbox, Flex, Modal } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ALL_VISIBLE, COLUMN_KEYS, type ColumnVisibility } from '../model/storage';

interface Props {
  open: boolean;
  value: ColumnVisibility;
  onClose: () => void;
  onSave: (v: ColumnVisibility) => void;
}

const COLUMN_LABEL = {
  id: 'col.id',
  name: 'col.name',
  type: 'col.type',
  status: 'col.status',
  health: 'col.health',
  response: 'col.response',
  balance: 'col.balance',
  used: 'col.used',
  priority: 'col.priority',
  weight: 'col.weight',
  group: 'col.group',
} as const;

/** Which columns the table shows; remembered in local storage. */
export function ColumnSettingsModal({ open, value, onClose, onSave }: Props) {
  const { t } = useTranslation('channels');
  const [draft, setDraft] = useState(value);
  useEffect(() => {
    if (open) setDraft(value);
  }, [open, value]);
  const checked = COLUMN_KEYS.filter((k) => draft[k]).length;
  return (
    <Modal
      open={open}
      title={t('columns.title')}
      onCancel={onClose}
      onOk={() => onSave(draft)}
      okText={t('common:action.save')}
      cancelText={t('common:action.cancel')}
      okButtonProps={{ 'data-testid': 'channels-columns-save' } as never}
      destroyOnHidden
      footer={(_, { OkBtn, CancelBtn }) => (
        <Flex justify="space-between" align="center">
          <Button onClick={() => setDraft({ ...ALL_VISIBLE })}>{t('columns.reset')}</Button>
          <Flex gap={8}>
            <CancelBtn />
            <OkBtn />
          </Flex>
        </Flex>
      )}
    >
      <Checkbox
        checked={checked === COLUMN_KEYS.length}
        indeterminate={checked > 0 && checked < COLUMN_KEYS.length}
        onChange={(e) => setDraft(Object.fromEntries(COLUMN_KEYS.map((k) => [k, e.target.checked])) as ColumnVisibility)}
        style={{ marginBottom: 12 }}
      >
        {t('columns.all')}
      </Checkbox>
      <div className="tw-ch-column-grid">
        {COLUMN_KEYS.map((k) => (
          <Checkbox key={k} checked={draft[k]} onChange={(e) => setDraft({ ...draft, [k]: e.target.checked })} data-testid={`channels-column-${k}`}>
            {t(COLUMN_LABEL[k])}
          </Checkbox>
        ))}
        <Checkbox checked disabled>
          {t('col.actions')}
        </Checkbox>
      </div>
    </Modal>
  );
}
