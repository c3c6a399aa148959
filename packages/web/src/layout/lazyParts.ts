import { lazy } from 'react';
import { getStoredUser } from '../lib/storage';
import { loadTexts } from '../i18n';

// Parts of the shell the login page does not show (the signed-in user's sidebar, menu and inbox bell, the phone
// drawer, a custom footer with its HTML sanitizer, the self-use and demo tags): each loads when first rendered, so
// the entry does not carry them.
const loadSidebar = () => import('./Sidebar');
const loadUserMenu = () => import('./UserMenu');
const loadInboxBell = () => import('./InboxBell');

export const Sidebar = lazy(() => loadSidebar().then((m) => ({ default: m.Sidebar })));
export const UserMenu = lazy(() => loadUserMenu().then((m) => ({ default: m.UserMenu })));
export const InboxBell = lazy(() => loadInboxBell().then((m) => ({ default: m.InboxBell })));
/** The header's organization switcher, with its texts (the organizations feature's namespace). */
export const OrgSwitcher = lazy(() =>
  Promise.all([import('../features/organizations/OrgSwitcher'), loadTexts(['organizations'])]).then(([m]) => m),
);
export const MobileDrawer = lazy(() => import('./MobileDrawer').then((m) => ({ default: m.MobileDrawer })));
export const FooterHtml = lazy(() => import('./FooterHtml'));
export const HeaderTag = lazy(() => import('antd/es/tag'));

/** A signed-in visitor will see these at once: fetch them alongside the page instead of after the first render. */
export function preloadSignedInParts(): void {
  if (!getStoredUser()) return;
  void loadSidebar();
  void loadUserMenu();
  void loadInboxBell();
}
