import { ApartmentOutlined, CheckOutlined, DownOutlined, PlusOutlined, UserOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { ORG_NAME_MAX } from '@tollway/shared';
import { App, Button, Dropdown, Input, type MenuProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { ActionModal } from '../../components/ActionModal';
import { useSubmit } from '../../lib/useSubmit';
import { createOrg, MY_ORGS_KEY, useMyOrgs } from './api';
import { orgIdOfPath, orgPath, setCurrentOrg, useCurrentOrg } from './current';

/** Where choosing Personal leads from an organization page: the personal tokens. */
const PERSONAL_HOME = '/app/tokens';

/**
 * The header's organization switcher: Personal (the person's own account), the organizations of GET /api/org/self
 * and "Create organization". The choice is kept (current.ts); choosing an organization opens its overview.
 */
export default function OrgSwitcher({ compact }: { compact: boolean }) {
  const { t } = useTranslation('organizations');
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const current = useCurrentOrg();
  const orgs = useMyOrgs();
  const [creating, setCreating] = useState(false);

  const list = orgs.data ?? [];
  const items: MenuProps['items'] = [
    {
      key: 'personal',
      icon: current ? <UserOutlined /> : <CheckOutlined />,
      label: <span data-testid="org-switcher-personal">{t('switcher.personal')}</span>,
    },
    ...(list.length
      ? [
          { type: 'divider' as const },
          {
            type: 'group' as const,
            key: 'orgs',
            label: t('switcher.orgs'),
            children: list.map((o) => ({
              key: String(o.id),
              icon: current?.id === o.id ? <CheckOutlined /> : <ApartmentOutlined />,
              label: (
                <span data-testid={`org-switcher-item-${o.id}`}>
                  {o.name} · {t(`role.${o.role}`)}
                </span>
              ),
            })),
          },
        ]
      : []),
    { type: 'divider' as const },
    {
      key: 'create',
      icon: <PlusOutlined />,
      label: <span data-testid="org-switcher-create">{t('switcher.create')}</span>,
    },
  ];

  const onClick: MenuProps['onClick'] = ({ key }) => {
    if (key === 'create') return setCreating(true);
    if (key === 'personal') {
      setCurrentOrg(undefined);
      if (orgIdOfPath(pathname) !== undefined) navigate(PERSONAL_HOME);
      return;
    }
    const org = list.find((o) => String(o.id) === key);
    if (!org) return;
    setCurrentOrg({ id: org.id, name: org.name, role: org.role });
    navigate(orgPath(org.id));
  };

  const name = current?.name ?? t('switcher.personal');
  return (
    <>
      <Dropdown trigger={['click']} placement="bottomRight" menu={{ items, onClick, selectable: false }}>
        <Button
          type="text"
          className="tw-org-switcher"
          aria-label={`${t('switcher.label')}: ${name}`}
          data-testid="org-switcher"
          data-current={current?.id ?? 0}
          icon={current ? <ApartmentOutlined /> : <UserOutlined />}
        >
          {/* On a phone the icon alone: the name is in the button's label and heads the drawer's organization pages. */}
          {!compact && <span className="tw-org-switcher-name">{name}</span>}
          {!compact && <DownOutlined style={{ fontSize: 10 }} />}
        </Button>
      </Dropdown>
      <CreateOrgModal open={creating} onClose={() => setCreating(false)} />
    </>
  );
}

/** POST /api/org, then switches to the new organization. */
function CreateOrgModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('organizations');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const { loading, run } = useSubmit();
  const save = () =>
    run(async () => {
      const org = await createOrg(name.trim());
      void message.success(t('create.done', { name: org.name }));
      await queryClient.invalidateQueries({ queryKey: MY_ORGS_KEY });
      setCurrentOrg({ id: org.id, name: org.name, role: org.role });
      setName('');
      onClose();
      navigate(orgPath(org.id));
    });
  return (
    <ActionModal
      open={open}
      title={t('create.title')}
      okText={t('create.ok')}
      okTestid="org-create-ok"
      okProps={{ disabled: !name.trim() }}
      loading={loading}
      onOk={save}
      onClose={onClose}
      destroyOnHidden
    >
      <Input
        value={name}
        onChange={(e) => setName(e.target.value)}
        onPressEnter={() => name.trim() && void save()}
        placeholder={t('create.namePh')}
        aria-label={t('create.name')}
        maxLength={ORG_NAME_MAX}
        autoFocus
        data-testid="org-create-name"
      />
    </ActionModal>
  );
}
