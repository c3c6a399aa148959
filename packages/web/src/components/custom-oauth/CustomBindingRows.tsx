import { LoginOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Popconfirm, Tag, Typography, type ButtonProps } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { apiDelete, apiGet } from '../../lib/api';
import { attempt } from '../../lib/attempt';
import { useStatus } from '../../lib/status';
import { browserProviders, startCustomSignIn } from './api';

interface Binding {
  provider_id: number | string;
  provider_name: string;
  provider_slug: string;
  provider_user_id: string;
}

const BINDINGS_KEY = ['oauth-bindings'] as const;

/**
 * The personal settings' rows of root-defined providers: each bound account (with unbind), then the enabled
 * providers not bound yet (bind: their sign-in started by this signed-in console binds on the way back).
 */
export function CustomBindingRows() {
  const { t } = useTranslation(['customOAuth', 'me']);
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const { data: status } = useStatus();
  const { data: bindings = [] } = useQuery({
    queryKey: BINDINGS_KEY,
    queryFn: () => apiGet<Binding[]>('/api/user/oauth/bindings'),
  });
  const custom = bindings.filter((b) => typeof b.provider_id === 'number');
  const unboundProviders = browserProviders(status).filter((p) => !custom.some((b) => b.provider_id === p.id));
  const unbind = (b: Binding) =>
    attempt(async () => {
      await apiDelete(`/api/user/oauth/bindings/${b.provider_id}`);
      void message.success(t('me:bindings.unbindDone'));
      await queryClient.invalidateQueries({ queryKey: BINDINGS_KEY });
    });
  const bind = async (slug: string) => {
    try {
      await startCustomSignIn(slug);
    } catch {
      void message.error(t('login.startFailed'));
    }
  };
  const row = (key: string, name: string, value: string, action: ReactNode) => (
    <div key={key} className="tw-binding-row" style={{ borderTop: '1px solid var(--tw-border)' }}>
      <span style={{ fontSize: 18, opacity: 0.75 }}>
        <LoginOutlined />
      </span>
      <div style={{ flex: 1, minWidth: 0 }}>
        <Typography.Text>{name}</Typography.Text>
        {value && (
          <Typography.Text type="secondary" ellipsis style={{ display: 'block', fontSize: 12 }}>
            {value}
          </Typography.Text>
        )}
      </div>
      {value ? <Tag color="success">{t('bindings.bound')}</Tag> : <Tag>{t('bindings.unbound')}</Tag>}
      {action}
    </div>
  );
  return (
    <>
      {custom.map((b) =>
        row(
          `custom-${b.provider_id}`,
          b.provider_name,
          b.provider_user_id,
          <Popconfirm
            title={t('me:bindings.unbindTitle', { name: b.provider_name })}
            description={t('me:bindings.unbindConfirm')}
            okText={t('bindings.unbind')}
            okButtonProps={{ danger: true, 'data-testid': `me-unbind-confirm-${b.provider_slug}` } as ButtonProps}
            cancelText={t('common:action.cancel')}
            onConfirm={() => unbind(b)}
          >
            <Button size="small" danger data-testid={`me-unbind-${b.provider_slug}`}>
              {t('bindings.unbind')}
            </Button>
          </Popconfirm>,
        ),
      )}
      {unboundProviders.map((p) =>
        row(
          `custom-${p.id}`,
          p.name,
          '',
          <Button size="small" onClick={() => void bind(p.slug)} data-testid={`me-bind-${p.slug}`}>
            {t('bindings.bind')}
          </Button>,
        ),
      )}
    </>
  );
}
