import { MenuFoldOutlined, MenuUnfoldOutlined } from '@ant-design/icons';
import { Layout, Menu, type MenuProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { useStatus } from '../lib/status';
import { selectedSidebarKey, sidebarItems } from './sideNavItems';
import { useStoredUser } from '../lib/session';
import { useCurrentOrg } from '../features/organizations/current';
import { useSidebarCollapsed } from './useSidebarCollapsed';
import { TipButton } from '../components/TipButton';

export const SIDEBAR_WIDTH = 200;
export const SIDEBAR_COLLAPSED_WIDTH = 60;

type Items = NonNullable<MenuProps['items']>;

/** Collapsed, group titles do not fit in 60 px: groups become dividers. */
function flattenGroups(items: Items): Items {
  return items.flatMap((item, i) =>
    item && 'type' in item && item.type === 'group'
      ? [...(i > 0 ? [{ type: 'divider' as const, key: `d-${String(item.key)}` }] : []), ...(item.children ?? [])]
      : [item],
  );
}

/** Desktop sidebar: collapsible (60/200), choice persisted. */
export function Sidebar() {
  const { t } = useTranslation('shell');
  const { data: status } = useStatus();
  const user = useStoredUser();
  const org = useCurrentOrg();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [collapsed, setCollapsed] = useSidebarCollapsed();
  const items = sidebarItems(t, status, user?.role, org);
  const label = collapsed ? t('side.expand') : t('side.collapse');
  return (
    <Layout.Sider
      className="tw-sider"
      data-testid="sidebar"
      data-collapsed={collapsed}
      width={SIDEBAR_WIDTH}
      collapsedWidth={SIDEBAR_COLLAPSED_WIDTH}
      collapsed={collapsed}
      trigger={null}
      collapsible
    >
      <div className="tw-sider-inner">
        <Menu
          mode="inline"
          className="tw-sider-menu"
          selectedKeys={[selectedSidebarKey(pathname)]}
          // The chat links open only on a chat page: a long list would push Wallet and Personal settings off screen.
          defaultOpenKeys={pathname.startsWith('/chat/') ? ['chat'] : []}
          items={collapsed ? flattenGroups(items) : items}
          onClick={({ key }) => navigate(key)}
        />
        <div className="tw-sider-footer">
          <TipButton
            label={label}
            placement="right"
            type="text"
            block
            data-testid="sidebar-collapse"
            icon={collapsed ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
            onClick={() => setCollapsed(!collapsed)}
          />
        </div>
      </div>
    </Layout.Sider>
  );
}
