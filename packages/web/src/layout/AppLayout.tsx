import { Layout, Spin } from 'antd';
import { Suspense, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import { Footer } from './Footer';
import { MobileDrawer, preloadSignedInParts, Sidebar } from './lazyParts';
import { useStoredUser } from '../lib/session';
import { TopBar } from './TopBar';
import { useDocumentMeta } from '../lib/useDocumentMeta';
import { useIsMobile } from '../lib/useIsMobile';

preloadSignedInParts();

/** Pages without the sidebar: home, chat and setup, plus the account pages. */
const NO_SIDEBAR = /^\/(setup|chat|login|register|reset|user\/reset|oauth)(\/|$)/;
function sidebarHidden(pathname: string): boolean {
  return pathname === '/' || NO_SIDEBAR.test(pathname);
}

/** Pages that draw edge to edge (no content padding). */
function isBare(pathname: string): boolean {
  return pathname === '/' || pathname.startsWith('/chat');
}

/** Pages that open on the centred sign-in card: while they load, its frame stays (as the app shell drew it). */
const AUTH_PAGE = /^\/(login|register|reset|user\/reset)(\/|$)/;

export function PageFallback() {
  const { pathname } = useLocation();
  if (AUTH_PAGE.test(pathname)) {
    return (
      <div className="tw-auth tw-auth-fallback">
        <div className="tw-boot-card">
          <span className="tw-boot-card-logo" />
          <Spin size="large" />
        </div>
      </div>
    );
  }
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
      {mobile && (
        <Suspense fallback={null}>
          <MobileDrawer open={drawerOpen} onClose={() => setDrawerOpen(false)} />
        </Suspense>
      )}
      <Layout className="tw-body" hasSider={showSider}>
        {showSider && (
          <Suspense fallback={null}>
            <Sidebar />
          </Suspense>
        )}
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
