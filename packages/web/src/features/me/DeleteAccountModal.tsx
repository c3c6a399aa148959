import { Alert, App, Input, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { apiDelete } from '../../lib/api';
import { useSubmit } from '../../lib/useSubmit';
import { forgetUser } from '../../lib/session';
import { ActionModal } from '../../components/ActionModal';

/** Type the own username to confirm, then DELETE /api/user/self, clear the user and go to /login. */
export function DeleteAccountModal({
  open,
  username,
  onClose,
}: {
  open: boolean;
  username: string;
  onClose: () => void;
}) {
  const { t } = useTranslation(['me', 'common']);
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [typed, setTyped] = useState('');
  const { loading, run } = useSubmit();
  useEffect(() => {
    if (open) setTyped('');
  }, [open]);
  const matches = typed === username;

  const remove = async () => {
    if (!matches) return;
    await run(async () => {
      await apiDelete('/api/user/self');
      forgetUser();
      void message.success(t('del.success'));
      onClose();
      navigate('/login', { replace: true });
    });
  };

  return (
    <ActionModal
      open={open}
      title={t('del.title')}
      okText={t('del.confirm')}
      okTestid="me-delete-confirm"
      okProps={{ danger: true, disabled: !matches }}
      loading={loading}
      onOk={remove}
      onClose={onClose}
    >
      <Alert type="error" showIcon title={t('del.warning')} style={{ marginBottom: 16 }} />
      <Typography.Paragraph>{t('del.prompt', { username })}</Typography.Paragraph>
      <Input
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
        placeholder={t('del.placeholder')}
        status={typed && !matches ? 'error' : undefined}
        data-testid="me-delete-input"
        onPressEnter={() => void remove()}
      />
      {typed && !matches && (
        <Typography.Text type="danger" style={{ display: 'block', marginTop: 4 }}>
          {t('del.mismatch')}
        </Typography.Text>
      )}
    </ActionModal>
  );
}
