import type { OrgRole } from '@tollway/shared';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

const ROLE_COLOR: Record<OrgRole, string> = { owner: 'gold', admin: 'blue', member: 'green', viewer: 'default' };

/** A member's role as a coloured tag. */
export function RoleTag({ role }: { role: OrgRole }) {
  const { t } = useTranslation('organizations');
  return <Tag color={ROLE_COLOR[role]}>{t(`role.${role}`)}</Tag>;
}
