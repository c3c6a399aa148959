import { Tag } from 'antd';
import { Role, UserStatus } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import type { AdminUser } from '../api';

export const isDeleted = (u: Pick<AdminUser, 'DeletedAt'>) =>
  u.DeletedAt !== null && u.DeletedAt !== undefined && u.DeletedAt !== '';

/** 1 ordinary user, 10 administrator, 100 super administrator; anything else unknown. */
export function RoleTag({ role }: { role: number }) {
  const { t } = useTranslation('users');
  if (role === Role.Common) return <Tag>{t('role.common')}</Tag>;
  if (role === Role.Admin) return <Tag color="gold">{t('role.admin')}</Tag>;
  if (role === Role.Root) return <Tag color="volcano">{t('role.root')}</Tag>;
  return <Tag color="default">{t('role.unknown')}</Tag>;
}

/** 1 activated, 2 banned, DeletedAt set → deleted; other values unknown. */
export function StatusTag({ user }: { user: AdminUser }) {
  const { t } = useTranslation('users');
  if (isDeleted(user)) return <Tag color="red">{t('status.deleted')}</Tag>;
  if (user.status === UserStatus.Enabled) return <Tag color="green">{t('status.enabled')}</Tag>;
  if (user.status === UserStatus.Disabled) return <Tag color="orange">{t('status.disabled')}</Tag>;
  return <Tag color="default">{t('status.unknown')}</Tag>;
}

const GROUP_COLORS = [
  'blue',
  'cyan',
  'geekblue',
  'green',
  'lime',
  'magenta',
  'orange',
  'purple',
  'gold',
  'volcano',
  'red',
];

/** Stable colour per group name. */
export function GroupTag({ group }: { group?: string }) {
  const { t } = useTranslation('users');
  if (!group) return <Tag>{t('group.none')}</Tag>;
  let h = 0;
  for (const ch of group) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return <Tag color={GROUP_COLORS[h % GROUP_COLORS.length]}>{group}</Tag>;
}
