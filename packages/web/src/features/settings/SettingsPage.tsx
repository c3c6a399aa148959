import { isAdmin, isRoot } from '@tollway/shared';
import { Button, Result, Skeleton, Tabs } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { getStoredUser } from '../../lib/storage';
import { PageHeader } from '../../components/PageHeader';
import { useOptions } from './model/useOptions';
import { ModelsTab } from './models/ModelsTab';
import { OperationTab } from './operation/OperationTab';
import { OtherTab } from './other/OtherTab';
import { RateLimitTab } from './ratelimit/RateLimitTab';
import { SystemTab } from './system/SystemTab';

export const SETTINGS_TABS = ['operation', 'ratelimit', 'models', 'system', 'other'] as const;
type TabKey = (typeof SETTINGS_TABS)[number];
/**
 * Tabs only root sees: every option of the system tab (sign-in, mail, addresses, payment, the outbound request
 * guard) is root-only. The other tabs hold operation settings; a root-only field among them is hidden from an
 * administrator (see model/access).
 */
const ROOT_TABS: ReadonlySet<TabKey> = new Set<TabKey>(['system']);

function TabBody({ tab }: { tab: TabKey }) {
  const { t } = useTranslation('settings');
  const options = useOptions({ fresh: true });
  if (options.isError && !options.isFetching)
    return (
      <Result
        status="warning"
        title={t('loadFailed')}
        extra={
          <Button onClick={() => void options.refetch()} data-testid="settings-retry">
            {t('common:action.refresh')}
          </Button>
        }
      />
    );
  if (!options.isFetchedAfterMount || !options.data) return <Skeleton active paragraph={{ rows: 10 }} />;
  const body: Record<TabKey, ReactNode> = {
    operation: <OperationTab />,
    ratelimit: <RateLimitTab />,
    models: <ModelsTab />,
    system: <SystemTab />,
    other: <OtherTab />,
  };
  return body[tab];
}

/** System and operation settings; the tab is held in ?tab= and defaults to operation. */
export default function SettingsPage() {
  const { t } = useTranslation('settings');
  const [params, setParams] = useSearchParams();
  const role = getStoredUser()?.role;
  const tabs = SETTINGS_TABS.filter((k) => isRoot(role) || !ROOT_TABS.has(k));
  const raw = params.get('tab');
  const tab: TabKey = (tabs as readonly string[]).includes(raw ?? '') ? (raw as TabKey) : 'operation';

  if (!isAdmin(role)) return <Result status="403" title={t('forbidden')} />;

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <Tabs
        activeKey={tab}
        onChange={(k) =>
          setParams(
            (p) => {
              p.set('tab', k);
              return p;
            },
            { replace: true },
          )
        }
        destroyOnHidden
        items={tabs.map((k) => ({
          key: k,
          label: <span data-testid={`settings-tab-${k}`}>{t(`tab.${k}`)}</span>,
          children: <TabBody tab={k} />,
        }))}
      />
    </>
  );
}
