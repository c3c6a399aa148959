import { MenuOutlined } from '@ant-design/icons';
import { Button, Layout, Menu, Space, Tooltip } from 'antd';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { useStatus } from '../lib/status';
import { Brand } from './Brand';
import { HeaderTag, InboxBell, OrgSwitcher, UserMenu } from './lazyParts';
import { InboxBellPlaceholder, UserMenuPlaceholder } from './HeaderPlaceholders';
import { LanguageMenu } from './LanguageMenu';
import { selectedTopKey, topNavItems } from './navItems';
import { useStoredUser } from '../lib/session';
import { ThemeToggle } from './ThemeToggle';
import { useIsMobile } from '../lib/useIsMobile';

function isNewYearsDay(): boolean {
  const d = new Date();
  return d.getMonth() === 0 && d.getDate() === 1;
}

/** Top bar of the application shell. */
export function TopBar({ onOpenDrawer }: { onOpenDrawer: () => void }) {
  const { t } = useTranslation('shell');
  const { data: status } = useStatus();
  const user = useStoredUser();
  const mobile = useIsMobile();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const selected = selectedTopKey(pathname, status);
  const showRegister = !mobile && !status?.self_use_mode_enabled && status?.register_enabled !== false;
  // Before setup every page leads to /setup: the menu would offer nothing to open.
  const showMenuButton = mobile && !pathname.startsWith('/setup') && status?.setup !== false;

  return (
    <Layout.Header className="tw-header" data-testid="top-bar">
      {showMenuButton && (
        <Button
          type="text"
          aria-label={t('header.menu')}
          data-testid="sidebar-toggle"
          icon={<MenuOutlined />}
          onClick={onOpenDrawer}
        />
      )}
      <Brand status={status} />
      {status?.self_use_mode_enabled && !mobile && (
        <Suspense fallback={null}>
          <HeaderTag color="purple">{t('header.selfUse')}</HeaderTag>
        </Suspense>
      )}
      {status?.demo_site_enabled && !mobile && (
        <Suspense fallback={null}>
          <HeaderTag color="gold">{t('header.demo')}</HeaderTag>
        </Suspense>
      )}
      {isNewYearsDay() && (
        <Tooltip title={t('header.newYear')}>
          <span className="tw-newyear" role="img" aria-label={t('header.newYear')}>
            🎉
          </span>
        </Tooltip>
      )}
      <div className="tw-header-nav">
        {!mobile && (
          <Menu
            mode="horizontal"
            data-testid="top-nav"
            selectedKeys={selected ? [selected] : []}
            items={topNavItems(t, status)}
            onClick={({ key }) => key !== 'docs' && navigate(key)}
          />
        )}
      </div>
      <Space size={mobile ? 0 : 4} className="tw-header-actions">
        {user && (
          <Suspense fallback={null}>
            <OrgSwitcher compact={mobile} />
          </Suspense>
        )}
        {user && (
          <Suspense fallback={<InboxBellPlaceholder />}>
            <InboxBell />
          </Suspense>
        )}
        <ThemeToggle />
        <LanguageMenu />
        {user ? (
          <Suspense fallback={<UserMenuPlaceholder user={user} compact={mobile} />}>
            <UserMenu user={user} compact={mobile} />
          </Suspense>
        ) : status?.setup === false ? null : (
          <>
            <Link to="/login" data-testid="nav-login">
              <Button type={showRegister ? 'text' : 'primary'} size={mobile ? 'small' : 'middle'}>
                {t('header.login')}
              </Button>
            </Link>
            {showRegister && (
              <Link to="/register" data-testid="nav-register">
                <Button type="primary">{t('header.register')}</Button>
              </Link>
            )}
          </>
        )}
      </Space>
    </Layout.Header>
  );
}
