import { DeleteOutlined, LockOutlined, SafetyOutlined } from '@ant-design/icons';
import type { UserPublic } from '@tollway/shared';
import { Button, Card, Divider } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AccessTokenRow } from './AccessTokenRow';
import { ChangePasswordModal } from './ChangePasswordModal';
import { DeleteAccountModal } from './DeleteAccountModal';
import { SettingRow } from './SettingRow';
import { IconTitle } from '../../components/IconTitle';

/** Access token, change password and delete account. */
export function SecurityCard({ user }: { user: UserPublic }) {
  const { t } = useTranslation('me');
  const [pwdOpen, setPwdOpen] = useState(false);
  const [delOpen, setDelOpen] = useState(false);
  return (
    <Card
      title={<IconTitle icon={SafetyOutlined}>{t('security.title')}</IconTitle>}
      styles={{ body: { paddingBlock: 8 } }}
      data-testid="me-security"
    >
      <AccessTokenRow />
      <Divider style={{ margin: 0 }} />
      <SettingRow
        icon={<LockOutlined />}
        title={t('security.password')}
        desc={t('security.passwordDesc')}
        action={
          <Button onClick={() => setPwdOpen(true)} data-testid="me-change-password">
            {t('security.changePassword')}
          </Button>
        }
      />
      <Divider style={{ margin: 0 }} />
      <SettingRow
        icon={<DeleteOutlined style={{ color: '#ff4d4f' }} />}
        title={t('security.delete')}
        desc={t('security.deleteDesc')}
        action={
          <Button danger onClick={() => setDelOpen(true)} data-testid="me-delete-account">
            {t('security.deleteButton')}
          </Button>
        }
      />
      <ChangePasswordModal open={pwdOpen} onClose={() => setPwdOpen(false)} />
      <DeleteAccountModal open={delOpen} username={user.username} onClose={() => setDelOpen(false)} />
    </Card>
  );
}
