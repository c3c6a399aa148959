import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import type { CustomOAuthProvider } from '@tollway/shared';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Popconfirm, Space, Switch, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiDelete, apiPut } from '../../../lib/api';
import { attempt } from '../../../lib/attempt';
import { STATUS_KEY } from '../../../lib/status';
import { isRootUser } from '../model/access';
import { PROVIDERS_KEY, useCustomProviders } from '../../../components/custom-oauth/api';
import { ProviderEditor } from './CustomOAuthEditor';

/**
 * Root's sign-in providers in the system settings: the list with an enabled switch, an editor (with discovery)
 * for a new or existing provider, and delete.
 */
export function CustomOAuthSection() {
  return isRootUser() ? <ProvidersCard /> : null;
}

function ProvidersCard() {
  const { t } = useTranslation('customOAuth');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const { data: providers = [], isLoading } = useCustomProviders();
  const [editing, setEditing] = useState<CustomOAuthProvider | 'new' | null>(null);
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: PROVIDERS_KEY });
    await queryClient.invalidateQueries({ queryKey: STATUS_KEY });
  };
  const toggle = (p: CustomOAuthProvider, enabled: boolean) =>
    attempt(async () => {
      await apiPut(`/api/custom-oauth-provider/${p.id}`, { enabled });
      await refresh();
    });
  const remove = (p: CustomOAuthProvider) =>
    attempt(async () => {
      await apiDelete(`/api/custom-oauth-provider/${p.id}`);
      void message.success(t('editor.deleted'));
      await refresh();
    });
  const callback = `${window.location.origin}/oauth/<slug>`;
  return (
    <Card
      id="section-custom-oauth"
      data-testid="settings-section-custom-oauth"
      title={t('section.title')}
      size="small"
      styles={{ header: { fontSize: 15 } }}
      style={{ marginBottom: 16, scrollMarginTop: 120 }}
      extra={
        <Button icon={<PlusOutlined />} onClick={() => setEditing('new')} data-testid="custom-oauth-add">
          {t('section.add')}
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">{t('section.desc', { callback })}</Typography.Paragraph>
      <Table<CustomOAuthProvider>
        rowKey="id"
        size="small"
        loading={isLoading}
        dataSource={providers}
        pagination={false}
        locale={{ emptyText: t('section.empty') }}
        columns={[
          { title: t('column.name'), dataIndex: 'name' },
          {
            title: t('column.slug'),
            dataIndex: 'slug',
            render: (v: string) => <Typography.Text code>{v}</Typography.Text>,
          },
          {
            title: t('column.kind'),
            dataIndex: 'kind',
            render: (v: string) => <Tag>{t(`kind.${v}`, { defaultValue: v })}</Tag>,
          },
          {
            title: t('column.enabled'),
            dataIndex: 'enabled',
            render: (v: boolean, p) => (
              <Switch
                size="small"
                checked={v}
                onChange={(on) => void toggle(p, on)}
                data-testid={`custom-oauth-enabled-${p.slug}`}
              />
            ),
          },
          {
            title: t('column.actions'),
            key: 'actions',
            render: (_, p) => (
              <Space size={4}>
                <Button
                  size="small"
                  icon={<EditOutlined />}
                  onClick={() => setEditing(p)}
                  data-testid={`custom-oauth-edit-${p.slug}`}
                >
                  {t('action.edit')}
                </Button>
                <Popconfirm
                  title={t('action.deleteTitle', { name: p.name })}
                  description={t('action.deleteConfirm')}
                  okButtonProps={{ danger: true }}
                  onConfirm={() => remove(p)}
                >
                  <Button size="small" danger icon={<DeleteOutlined />} data-testid={`custom-oauth-delete-${p.slug}`}>
                    {t('action.delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      {editing && (
        <ProviderEditor
          provider={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
          onSaved={async () => {
            setEditing(null);
            void message.success(t('editor.saved'));
            await refresh();
          }}
        />
      )}
    </Card>
  );
}
