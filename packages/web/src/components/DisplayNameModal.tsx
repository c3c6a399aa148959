import { useQueryClient } from '@tanstack/react-query';
import { App, Input } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiPut } from '../lib/api';
import { useSubmit } from '../lib/useSubmit';
import { patchStoredUser } from '../lib/session';
import { SELF_KEY } from '../lib/self';
import { ActionModal } from './ActionModal';

/** PUT /api/user/self {display_name}. */
export function DisplayNameModal({ open, current, onClose }: { open: boolean; current: string; onClose: () => void }) {
  const { t } = useTranslation(['me', 'common']);
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [value, setValue] = useState(current);
  const { loading, run } = useSubmit();
  useEffect(() => {
    if (open) setValue(current);
  }, [open, current]);
  const tooLong = value.trim().length > 20;

  const save = async () => {
    if (tooLong) return;
    await run(async () => {
      await apiPut('/api/user/self', { display_name: value.trim() });
      patchStoredUser({ display_name: value.trim() });
      void queryClient.invalidateQueries({ queryKey: SELF_KEY });
      void message.success(t('profile.nameSaved'));
      onClose();
    });
  };

  return (
    <ActionModal
      open={open}
      title={t('profile.editName')}
      okText={t('common:action.save')}
      okTestid="me-name-save"
      okProps={{ disabled: tooLong }}
      loading={loading}
      onOk={save}
      onClose={onClose}
      destroyOnHidden
    >
      <Input
        value={value}
        onChange={(e) => setValue(e.target.value)}
        placeholder={t('profile.displayNamePh')}
        status={tooLong ? 'error' : undefined}
        maxLength={40}
        data-testid="me-name-input"
        onPressEnter={() => void save()}
      />
      {tooLong && <div style={{ color: '#ff4d4f', marginTop: 4 }}>{t('profile.nameMax')}</div>}
    </ActionModal>
  );
}
