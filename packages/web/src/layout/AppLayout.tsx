import { Layout, Spin } from 'antd';
import { Suspense, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import { Footer } from './Footer';
import { MobileDrawer } from './MobileDrawer';
import { useStoredUser } from '../lib/session';
import { Sidebar } from './Sidebar';
import { TopBar } from './TopBar';
import { useDocumentMeta } from '../lib/useDocumentMeta';
import { useIsMobile } from '../lib/useIsMobile';

/** Pages without the sidebar: home, chat and setup, plus the account pages. */
const NO_SIDEBAR = /^\/(setup|chat|login|register|reset|user\/reset|oauth)(\/|$)/;
function sidebarHidden(pathname: string): boolean {
  return pathname === '/' || NO_SIDEBAR.test(pathname);
}

/** Pages that draw edge to edge (no content padding). */
function isBare(pathname: string): boolean {
  return pathname === '/' || pathname.startsWith('/chat');
}

export function PageFallback() {
  return (
    <div className="tw-page-fallback">
      <Spin size="large" />
    </div>
  );
}

/** The application shell: top bar, sidebar (desktop, logged in), content and footer. */
export function AppLayout() {
  const { pathname } = useLocation();
  const mobile = useIsMobile();
  const user = useStoredUser();
  const [drawerOpen, setDrawerOpen] = useState(false);
  useDocumentMeta();
  const showSider = !mobile && !!user && !sidebarHidden(pathname);
  return (
    <Layout className="tw-shell">
      <TopBar onOpenDrawer={() => setDrawerOpen(true)} />
      {mobile && <MobileDrawer open={drawerOpen} onClose={() => setDrawerOpen(false)} />}
      <Layout className="tw-body" hasSider={showSider}>
        {showSider && <Sidebar />}
        <Layout className="tw-main">
          <Layout.Content className={isBare(pathname) ? 'tw-content tw-content-bare' : 'tw-content'}>
            <Suspense fallback={<PageFallback />}>
              <Outlet />
            </Suspense>
          </Layout.Content>
          <Footer />
        </Layout>
      </Layout>
    </Layout>
  );
}
