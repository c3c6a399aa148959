import { ApartmentOutlined } from '@ant-design/icons';
import type { LdapBindingStatus } from '@tollway/shared';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Input, Modal, Popconfirm, Space, Tag, Typography, type ButtonProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiDelete, apiGet, apiPost } from '../../lib/api';
import { attempt } from '../../lib/attempt';
import { useStatus } from '../../lib/status';
import { useSubmit } from '../../lib/useSubmit';

const LDAP_BINDING_KEY = ['ldap-binding'];

/** Bind a directory account by signing in to it once (POST /api/user/ldap/binding). */
function BindLdapModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('me');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const { loading, run } = useSubmit();
  const submit = async () => {
    if (!username.trim() || !password) return void message.error(t('bindings.ldapRequired'));
    await run(async () => {
      await apiPost<unknown>('/api/user/ldap/binding', { username: username.trim(), password });
      void message.success(t('bindings.ldapBound'));
      await queryClient.invalidateQueries({ queryKey: LDAP_BINDING_KEY });
      setPassword('');
      onClose();
    });
  };
  return (
    <Modal
      open={open}
      title={t('bindings.bindLdap')}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={t('bindings.bind')}
      okButtonProps={{ loading, 'data-testid': 'me-bind-ldap-submit' } as ButtonProps}
      width={400}
      centered
      destroyOnHidden
      data-testid="me-bind-ldap-modal"
    >
      <Space orientation="vertical" style={{ width: '100%' }} size={12}>
        <Typography.Text type="secondary">{t('bindings.bindLdapDesc')}</Typography.Text>
        <Input
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          placeholder={t('bindings.ldapUsernamePh')}
          autoComplete="username"
          data-testid="me-bind-ldap-username"
        />
        <Input.Password
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          placeholder={t('bindings.ldapPasswordPh')}
          autoComplete="current-password"
          onPressEnter={() => void submit()}
          data-testid="me-bind-ldap-password"
        />
      </Space>
    </Modal>
  );
}

/**
 * The directory (LDAP) account row of the linked accounts: shown while directory sign-in is on or an account is
 * bound; bind by the directory's username and password, release with a confirmation.
 */
export function LdapBindingRow() {
  const { t } = useTranslation('me');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const { data: status } = useStatus();
  const [binding, setBinding] = useState(false);
  const { data } = useQuery({
    queryKey: LDAP_BINDING_KEY,
    queryFn: () => apiGet<LdapBindingStatus>('/api/user/ldap/binding', { silent: true }),
  });
  if (!data || (!data.bound && !status?.ldap_login)) return null;
  const unbind = () =>
    attempt(async () => {
      await apiDelete('/api/user/ldap/binding');
      void message.success(t('bindings.unbindDone'));
      await queryClient.invalidateQueries({ queryKey: LDAP_BINDING_KEY });
    });
  return (
    <div className="tw-binding-row" style={{ borderTop: '1px solid var(--tw-border)' }} data-testid="me-binding-ldap">
      <span style={{ fontSize: 18, opacity: 0.75 }}>
        <ApartmentOutlined />
      </span>
      <div style={{ flex: 1, minWidth: 0 }}>
        <Typography.Text>{t('bindings.ldap')}</Typography.Text>
        {data.bound && (
          <Typography.Text type="secondary" ellipsis style={{ display: 'block', fontSize: 12 }}>
            {data.username}
          </Typography.Text>
        )}
      </div>
      {data.bound ? <Tag color="success">{t('bindings.bound')}</Tag> : <Tag>{t('bindings.unbound')}</Tag>}
      {data.bound ? (
        <Popconfirm
          title={t('bindings.unbindTitle', { name: t('bindings.ldap') })}
          description={t('bindings.unbindConfirm')}
          okText={t('bindings.unbind')}
          okButtonProps={{ danger: true, 'data-testid': 'me-unbind-confirm-ldap' } as ButtonProps}
          cancelText={t('common:action.cancel')}
          onConfirm={unbind}
        >
          <Button size="small" danger data-testid="me-unbind-ldap">
            {t('bindings.unbind')}
          </Button>
        </Popconfirm>
      ) : (
        <Button size="small" onClick={() => setBinding(true)} data-testid="me-bind-ldap">
          {t('bindings.bind')}
        </Button>
      )}
      <BindLdapModal open={binding} onClose={() => setBinding(false)} />
    </div>
  );
}
