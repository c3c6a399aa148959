import { LogoutOutlined, SettingOutlined, UserOutlined } from '@ant-design/icons';
import { App, Avatar, Button, Dropdown } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { StoredUser } from '../lib/storage';
import { signOut } from '../lib/session';

/** Avatar with the username; the dropdown holds personal settings and log out. */
export function UserMenu({ user, compact }: { user: StoredUser; compact: boolean }) {
  const { t } = useTranslation('shell');
  const navigate = useNavigate();
  const { message } = App.useApp();
  const name = user.display_name || user.username;
  const logout = async () => {
    await signOut();
    void message.success(t('header.loggedOut'));
    navigate('/login');
  };
  return (
    <Dropdown
      trigger={['click']}
      placement="bottomRight"
      menu={{
        items: [
          { key: 'me', icon: <SettingOutlined />, label: t('header.me') },
          { type: 'divider' },
          {
            key: 'logout',
            icon: <LogoutOutlined />,
            danger: true,
            label: <span data-testid="logout">{t('header.logout')}</span>,
          },
        ],
        onClick: ({ key }) => (key === 'logout' ? void logout() : navigate('/app/me')),
      }}
    >
      <Button type="text" className="tw-user-btn" data-testid="user-menu">
        <Avatar size={28} className="tw-avatar" icon={name ? undefined : <UserOutlined />}>
          {name ? name.slice(0, 1).toUpperCase() : null}
        </Avatar>
        {!compact && <span className="tw-user-name">{user.username}</span>}
      </Button>
    </Dropdown>
  );
}
