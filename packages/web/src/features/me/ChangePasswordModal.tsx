import { LockOutlined } from '@ant-design/icons';
import { zodResolver } from '@hookform/resolvers/zod';
import { App } from 'antd';
import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { apiPut } from '../../lib/api';
import { useSubmit } from '../../lib/useSubmit';
import { FieldsForm } from '../../components/FieldsForm';
import { TextField } from '../../components/TextField';
import { ActionModal } from '../../components/ActionModal';

const schema = z
  .object({
    original_password: z.string().min(1, 'me:password.originalRequired'),
    password: z.string().min(8, 'me:password.min'),
    confirm: z.string(),
  })
  .refine((v) => v.password === v.confirm, { path: ['confirm'], message: 'me:password.mismatch' });
type Values = z.infer<typeof schema>;
const EMPTY: Values = { original_password: '', password: '', confirm: '' };

/** PUT /api/user/self {original_password, password}. */
export function ChangePasswordModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation(['me', 'common']);
  const { message } = App.useApp();
  const { loading, run } = useSubmit();
  const { control, handleSubmit, reset } = useForm<Values>({ resolver: zodResolver(schema), defaultValues: EMPTY });
  useEffect(() => {
    if (open) reset(EMPTY);
  }, [open, reset]);

  const submit = async (v: Values) => {
    await run(async () => {
      await apiPut('/api/user/self', { original_password: v.original_password, password: v.password });
      void message.success(t('password.success'));
      onClose();
    });
  };

  return (
    <ActionModal
      open={open}
      title={t('password.title')}
      okText={t('common:action.submit')}
      okTestid="me-password-submit"
      loading={loading}
      onOk={() => handleSubmit(submit)()}
      onClose={onClose}
    >
      <FieldsForm onSubmit={handleSubmit(submit)}>
        <TextField
          control={control}
          name="original_password"
          label={t('password.original')}
          password
          prefix={<LockOutlined />}
          placeholder={t('password.originalPh')}
          autoComplete="current-password"
          data-testid="me-password-original"
        />
        <TextField
          control={control}
          name="password"
          label={t('password.new')}
          password
          prefix={<LockOutlined />}
          placeholder={t('password.newPh')}
          autoComplete="new-password"
          data-testid="me-password-new"
        />
        <TextField
          control={control}
          name="confirm"
          label={t('password.confirm')}
          password
          prefix={<LockOutlined />}
          placeholder={t('password.confirmPh')}
          autoComplete="new-password"
          data-testid="me-password-confirm"
        />
        <button type="submit" hidden />
      </FieldsForm>
    </ActionModal>
  );
}
