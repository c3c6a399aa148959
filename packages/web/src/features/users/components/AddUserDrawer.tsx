import { zodResolver } from '@hookform/resolvers/zod';
import { App, Button, Drawer, Flex, Form, Input } from 'antd';
import { useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from '../../../lib/api';
import { createUser } from '../api';
import { useIsMobile } from '../../../lib/useIsMobile';
import { createUserSchema, DISPLAY_NAME_MAX, REMARK_MAX, USERNAME_MAX, type CreateUserForm } from '../schemas';
import { FormField } from '../../../components/FormField';
import { TextField } from '../../../components/TextField';

interface Props {
  open: boolean;
  onClose: () => void;
  onCreated: () => void;
}

const EMPTY: CreateUserForm = { username: '', display_name: '', password: '', remark: '' };

/** Add-user drawer: username, display name, password (≥ 8), remark → POST /api/user/. */
export function AddUserDrawer({ open, onClose, onCreated }: Props) {
  const { t } = useTranslation('users');
  const { message } = App.useApp();
  const mobile = useIsMobile();
  const [saving, setSaving] = useState(false);
  const schema = useMemo(() => createUserSchema(t), [t]);
  const { control, handleSubmit, reset } = useForm<CreateUserForm>({
    resolver: zodResolver(schema),
    defaultValues: EMPTY,
    mode: 'onTouched',
  });

  const close = () => {
    reset(EMPTY);
    onClose();
  };

  const submit = handleSubmit(async (values) => {
    setSaving(true);
    try {
      await createUser({ ...values, username: values.username.trim(), display_name: values.display_name.trim() });
      void message.success(t('toast.created'));
      reset(EMPTY);
      onCreated();
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
    } finally {
      setSaving(false);
    }
  });

  return (
    <Drawer
      open={open}
      onClose={close}
      title={t('drawer.addTitle')}
      size={mobile ? '100%' : 900}
      destroyOnHidden
      footer={
        <Flex justify="end" gap={8}>
          <Button onClick={close}>{t('common:action.cancel')}</Button>
          <Button type="primary" loading={saving} onClick={() => void submit()} data-testid="user-form-submit">
            {t('common:action.submit')}
          </Button>
        </Flex>
      }
    >
      <Form layout="vertical" onFinish={() => void submit()}>
        <button type="submit" hidden aria-hidden />
        <TextField
          control={control}
          name="username"
          label={t('field.username')}
          required
          data-testid="user-form-username"
          maxLength={USERNAME_MAX}
          placeholder={t('placeholder.username')}
          autoComplete="off"
        />
        <TextField
          control={control}
          name="display_name"
          label={t('field.displayName')}
          data-testid="user-form-display-name"
          maxLength={DISPLAY_NAME_MAX}
          placeholder={t('placeholder.displayName')}
          autoComplete="off"
        />
        <TextField
          control={control}
          name="password"
          label={t('field.password')}
          required
          password
          data-testid="user-form-password"
          placeholder={t('placeholder.password')}
          autoComplete="new-password"
        />
        <FormField
          control={control}
          name="remark"
          label={t('field.remark')}
          render={(f) => (
            <Input.TextArea
              {...f}
              data-testid="user-form-remark"
              maxLength={REMARK_MAX}
              autoSize={{ minRows: 2, maxRows: 6 }}
              placeholder={t('placeholder.remark')}
            />
          )}
        />
      </Form>
    </Drawer>
  );
}
