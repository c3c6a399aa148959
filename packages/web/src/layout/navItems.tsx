import type { MenuProps } from 'antd';
import type { TFunction } from 'i18next';
import { safeUrl } from '../lib/safe-url';
import type { Status } from '../lib/status';

export type Items = NonNullable<MenuProps['items']>;

/** Where the console entry of the top bar goes: dashboard when data export is on, else tokens. */
export function consolePath(status: Status | undefined): string {
  return status?.enable_data_export ? '/app/dashboard' : '/app/tokens';
}

/** Top-bar navigation entries of the application shell. */
export function topNavItems(t: TFunction, status: Status | undefined): Items {
  const items: Items = [
    { key: '/', label: t('nav.home') },
    { key: consolePath(status), label: t('nav.console') },
    { key: '/pricing', label: t('nav.pricing') },
  ];
  const docs = safeUrl(status?.docs_link, 'link');
  if (docs) {
    items.push({
      key: 'docs',
      label: (
        <a href={docs} target="_blank" rel="noopener noreferrer" data-testid="nav-docs">
          {t('nav.docs')}
        </a>
      ),
    });
  }
  items.push({ key: '/about', label: t('nav.about') });
  return items;
}

/** Top-bar entry matching the current path. */
export function selectedTopKey(pathname: string, status: Status | undefined): string | undefined {
  if (pathname === '/') return '/';
  if (pathname.startsWith('/pricing')) return '/pricing';
  if (pathname.startsWith('/about')) return '/about';
  if (pathname.startsWith('/app') || pathname.startsWith('/admin')) return consolePath(status);
  return undefined;
}
