import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Flex } from 'antd';
import type { SubscriptionPlan } from '@tollway/shared';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListCard } from '../../components/ListCard';
import { PageHeader } from '../../components/PageHeader';
import { attempt } from '../../lib/attempt';
import { setPlanEnabled, SUBSCRIPTIONS_KEY, useAdminPlans } from '../../lib/subscriptions';
import { PlanDrawer } from './components/PlanDrawer';
import { PlansTable } from './components/PlansTable';

/** /admin/subscriptions: the subscription plans (new-api's), created and edited in a drawer, switched on and off. */
export default function SubscriptionsPage() {
  const { t } = useTranslation('subscriptions');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const plans = useAdminPlans();
  const [editing, setEditing] = useState<SubscriptionPlan | null | undefined>(undefined);
  const [toggling, setToggling] = useState<number | null>(null);
  // Every subscription query: the plans on sale and the users' subscriptions name these plans too.
  const refresh = useCallback(() => queryClient.invalidateQueries({ queryKey: SUBSCRIPTIONS_KEY }), [queryClient]);

  const onToggle = (plan: SubscriptionPlan, enabled: boolean) => {
    setToggling(plan.id);
    void attempt(async () => {
      await setPlanEnabled(plan.id, enabled);
      void message.success(t(enabled ? 'toast.enabled' : 'toast.disabled'));
      await refresh();
    }).finally(() => setToggling(null));
  };

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <ListCard>
        <Flex wrap gap={8} justify="flex-end" style={{ marginBottom: 16 }}>
          <Button
            icon={<ReloadOutlined />}
            onClick={() => void refresh()}
            loading={plans.isFetching}
            aria-label={t('toolbar.refresh')}
            data-testid="plans-refresh"
          />
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing(null)} data-testid="plans-add">
            {t('toolbar.add')}
          </Button>
        </Flex>
        {plans.isError ? (
          <Alert
            type="error"
            showIcon
            title={t('loadFailed')}
            style={{ marginBottom: 16 }}
            action={
              <Button size="small" onClick={() => void plans.refetch()}>
                {t('retry')}
              </Button>
            }
          />
        ) : null}
        <PlansTable
          plans={plans.data ?? []}
          loading={plans.isFetching}
          toggling={toggling}
          onToggle={onToggle}
          onEdit={(p) => setEditing(p)}
        />
      </ListCard>
      <PlanDrawer
        target={editing}
        onClose={() => setEditing(undefined)}
        onSaved={() => {
          setEditing(undefined);
          void refresh();
        }}
      />
    </>
  );
}
