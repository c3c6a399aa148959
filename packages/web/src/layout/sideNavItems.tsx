import {
  ApartmentOutlined,
  ApiOutlined,
  AuditOutlined,
  FundOutlined,
  LineChartOutlined,
  BarChartOutlined,
  CommentOutlined,
  CrownOutlined,
  DashboardOutlined,
  DeploymentUnitOutlined,
  ExperimentOutlined,
  GiftOutlined,
  KeyOutlined,
  MessageOutlined,
  PictureOutlined,
  ScheduleOutlined,
  SettingOutlined,
  TeamOutlined,
  UserOutlined,
  UsergroupAddOutlined,
  WalletOutlined,
} from '@ant-design/icons';
import type { TFunction } from 'i18next';
import type { ReactElement } from 'react';
import { isAdmin, isRoot, orgCan } from '@tollway/shared';
import { orgPath, type CurrentOrg, type OrgPage } from '../features/organizations/current';
import type { Status } from '../lib/status';
import type { Items } from './navItems';

// The signed-in sections (and their icons) load with the sidebar, not with every page.

const ORG_ICONS: Record<OrgPage, ReactElement> = {
  overview: <ApartmentOutlined />,
  members: <TeamOutlined />,
  teams: <UsergroupAddOutlined />,
  tokens: <KeyOutlined />,
  budgets: <FundOutlined />,
  spend: <LineChartOutlined />,
  logs: <BarChartOutlined />,
};

/** The chosen organization's pages (its tokens only for roles that hold tokens). */
function orgItems(t: TFunction, org: CurrentOrg): Items {
  const pages = (Object.keys(ORG_ICONS) as OrgPage[]).filter((p) => p !== 'tokens' || orgCan(org.role, 'tokens.own'));
  return pages.map((p) => ({ key: orgPath(org.id, p), icon: ORG_ICONS[p], label: t(`side.org.${p}`) }));
}

/**
 * Sidebar sections of the application shell; keys are route paths. With an organization chosen (the header's
 * switcher), its pages take the place of the personal console section.
 */
export function sidebarItems(
  t: TFunction,
  status: Status | undefined,
  role: number | undefined,
  org?: CurrentOrg,
): Items {
  const chats = Array.isArray(status?.chats) ? status.chats : [];
  const items: Items = [{ key: '/playground', icon: <ExperimentOutlined />, label: t('side.playground') }];
  if (chats.length > 0) {
    items.push({
      key: 'chat',
      icon: <CommentOutlined />,
      label: t('side.chat'),
      children: chats.map((entry, index) => ({
        key: `/chat/${index}`,
        label: Object.keys(entry ?? {})[0] || t('side.chatItem', { index: index + 1 }),
      })),
    });
  }
  const consoleChildren: Items = [];
  if (status?.enable_data_export)
    consoleChildren.push({ key: '/app/dashboard', icon: <DashboardOutlined />, label: t('side.dashboard') });
  consoleChildren.push({ key: '/app/tokens', icon: <KeyOutlined />, label: t('side.tokens') });
  consoleChildren.push({ key: '/app/logs/api-usage', icon: <BarChartOutlined />, label: t('side.logs') });
  if (status?.enable_drawing)
    consoleChildren.push({ key: '/app/logs/drawing', icon: <PictureOutlined />, label: t('side.drawing') });
  if (status?.enable_task)
    consoleChildren.push({ key: '/app/logs/tasks', icon: <ScheduleOutlined />, label: t('side.tasks') });
  if (org)
    items.push({
      type: 'group',
      key: 'g-org',
      label: t('side.org.group', { name: org.name }),
      children: orgItems(t, org),
    });
  else items.push({ type: 'group', key: 'g-console', label: t('side.console'), children: consoleChildren });
  if (isAdmin(role)) {
    items.push({
      type: 'group',
      key: 'g-admin',
      label: t('side.admin'),
      children: [
        { key: '/admin/channels', icon: <ApiOutlined />, label: t('side.channels') },
        { key: '/admin/mcp', icon: <DeploymentUnitOutlined />, label: t('side.mcp') },
        { key: '/admin/coupons', icon: <GiftOutlined />, label: t('side.coupons') },
        { key: '/admin/subscriptions', icon: <CrownOutlined />, label: t('side.subscriptions') },
        { key: '/admin/messages', icon: <MessageOutlined />, label: t('side.messages') },
        { key: '/admin/users', icon: <TeamOutlined />, label: t('side.users') },
        { key: '/admin/organizations', icon: <ApartmentOutlined />, label: t('side.organizations') },
        { key: '/admin/settings', icon: <SettingOutlined />, label: t('side.settings') },
        // Root only: the administrators' audit log.
        ...(isRoot(role) ? [{ key: '/admin/audit', icon: <AuditOutlined />, label: t('side.audit') }] : []),
      ],
    });
  }
  items.push({
    type: 'group',
    key: 'g-personal',
    label: t('side.personal'),
    children: [
      { key: '/app/wallet', icon: <WalletOutlined />, label: t('side.wallet') },
      { key: '/app/me', icon: <UserOutlined />, label: t('side.me') },
    ],
  });
  return items;
}

/** The sidebar entry matching the current path (edit pages light up their list entry). */
export function selectedSidebarKey(pathname: string): string {
  if (pathname.startsWith('/user/edit')) return '/admin/users';
  if (pathname.startsWith('/channel/')) return '/admin/channels';
  if (pathname.startsWith('/app/inbox')) return '/app/inbox';
  const chat = /^\/chat\/(\d+)/.exec(pathname);
  if (chat) return `/chat/${chat[1]}`;
  return pathname.replace(/\/+$/, '') || '/';
}
