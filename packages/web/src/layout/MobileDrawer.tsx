import { Divider, Drawer, Menu } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { useStatus } from '../lib/status';
import { Brand } from './Brand';
import { selectedTopKey, topNavItems } from './navItems';
import { selectedSidebarKey, sidebarItems } from './sideNavItems';
import { useStoredUser } from '../lib/session';
import { useCurrentOrg } from '../features/organizations/current';

/** Mobile navigation: top-bar entries plus, when logged in, the sidebar sections. */
export function MobileDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('shell');
  const { data: status } = useStatus();
  const user = useStoredUser();
  const org = useCurrentOrg();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const go = (key: string) => {
    if (key === 'docs') return;
    onClose();
    navigate(key);
  };
  const top = selectedTopKey(pathname, status);
  return (
    <Drawer
      open={open}
      onClose={onClose}
      placement="left"
      size={264}
      title={<Brand status={status} />}
      styles={{ body: { padding: '8px 0' } }}
      className="tw-mobile-drawer"
    >
      <div data-testid="sidebar">
        <Menu
          mode="inline"
          selectedKeys={top ? [top] : []}
          items={topNavItems(t, status)}
          onClick={({ key }) => go(key)}
        />
        {user && (
          <>
            <Divider style={{ margin: '8px 0' }} />
            <Menu
              mode="inline"
              selectedKeys={[selectedSidebarKey(pathname)]}
              defaultOpenKeys={['chat']}
              items={sidebarItems(t, status, user.role, org)}
              onClick={({ key }) => go(key)}
            />
          </>
        )}
      </div>
    </Drawer>
  );
}
