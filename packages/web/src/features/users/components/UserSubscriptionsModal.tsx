import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Modal, Popconfirm, Select, Table, Tag, Typography, type ButtonProps } from 'antd';
import type { TableColumnsType } from 'antd';
import type { UserSubscription, UserSubscriptionStatus } from '@tollway/shared';
import { useEffect, useState, type HTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import { attempt } from '../../../lib/attempt';
import { formatTime } from '../../../lib/format-time';
import { useQuotaFormat } from '../../../lib/self';
import {
  bindPlan,
  deleteSubscription,
  invalidateSubscription,
  SUBSCRIPTIONS_KEY,
  useAdminPlans,
  useUserSubscriptions,
} from '../../../lib/subscriptions';
import type { AdminUser } from '../api';

const STATUS_COLOR: Record<UserSubscriptionStatus, string> = { active: 'green', expired: 'default', cancelled: 'red' };
const time = (s: number) => formatTime(s, { seconds: false, empty: '—' });

interface Props {
  /** The user whose subscriptions are shown; null: closed. */
  user: AdminUser | null;
  onClose: () => void;
  /** After a change (binding a plan may move the user to another group). */
  onChanged: () => void;
}

/**
 * A user's subscriptions (every status) with used / total, period and status; bind an enabled plan without payment,
 * invalidate or delete one (each confirmed). Texts: the `subscriptions` namespace.
 */
export function UserSubscriptionsModal({ user, onClose, onChanged }: Props) {
  const { t } = useTranslation('subscriptions');
  const { message } = App.useApp();
  const fmt = useQuotaFormat();
  const queryClient = useQueryClient();
  const open = user !== null;
  const subs = useUserSubscriptions(user?.id ?? null);
  const plans = useAdminPlans(open);
  const [planId, setPlanId] = useState<number | undefined>(undefined);
  const [busy, setBusy] = useState<string | null>(null);
  useEffect(() => {
    if (open) setPlanId(undefined);
  }, [open]);

  const titleOf = (id: number) => plans.data?.find((p) => p.id === id)?.title ?? t('value.planN', { id });
  const enabledPlans = (plans.data ?? []).filter((p) => p.enabled);

  /** Runs an action, says what it did (or the server's note), and refreshes the list and the users table. */
  const act = (key: string, action: () => Promise<string | undefined>, done: string) => {
    setBusy(key);
    return attempt(async () => {
      const note = await action();
      void message.success(note ?? done);
      await queryClient.invalidateQueries({ queryKey: SUBSCRIPTIONS_KEY });
      onChanged();
    }).finally(() => setBusy(null));
  };

  const bind = () => {
    if (!user || planId === undefined) return;
    void act('bind', () => bindPlan(user.id, planId), t('user.bound')).then(() => setPlanId(undefined));
  };

  const columns: TableColumnsType<UserSubscription> = [
    { title: 'ID', dataIndex: 'id', width: 60 },
    { title: t('user.col.plan'), key: 'plan', render: (_, s) => titleOf(s.plan_id) },
    {
      title: t('user.col.usage'),
      key: 'usage',
      render: (_, s) =>
        s.amount_total > 0
          ? t('usage.of', { used: fmt(s.amount_used), total: fmt(s.amount_total) })
          : t('usage.unlimited', { used: fmt(s.amount_used) }),
    },
    {
      title: t('user.col.period'),
      key: 'period',
      render: (_, s) => (
        <Typography.Text style={{ whiteSpace: 'nowrap' }}>
          {time(s.start_time)} – {time(s.end_time)}
        </Typography.Text>
      ),
    },
    { title: t('user.col.nextReset'), dataIndex: 'next_reset_time', render: (n: number) => time(n) },
    {
      title: t('user.col.status'),
      dataIndex: 'status',
      render: (v: UserSubscriptionStatus) => <Tag color={STATUS_COLOR[v]}>{t(`status.${v}`)}</Tag>,
    },
    {
      title: t('user.col.actions'),
      key: 'actions',
      render: (_, s) => (
        <Flex gap={2}>
          {s.status === 'active' ? (
            <Popconfirm
              title={t('user.invalidateTitle')}
              description={t('user.invalidateConfirm')}
              okText={t('user.invalidate')}
              cancelText={t('common:action.cancel')}
              okButtonProps={{ danger: true, 'data-testid': `sub-invalidate-confirm-${s.id}` } as ButtonProps}
              onConfirm={() => act(`inv-${s.id}`, () => invalidateSubscription(s.id), t('user.invalidated'))}
            >
              <Button size="small" type="link" loading={busy === `inv-${s.id}`} data-testid={`sub-invalidate-${s.id}`}>
                {t('user.invalidate')}
              </Button>
            </Popconfirm>
          ) : null}
          <Popconfirm
            title={t('user.deleteTitle')}
            description={t('user.deleteConfirm')}
            okText={t('user.delete')}
            cancelText={t('common:action.cancel')}
            okButtonProps={{ danger: true, 'data-testid': `sub-delete-confirm-${s.id}` } as ButtonProps}
            onConfirm={() => act(`del-${s.id}`, () => deleteSubscription(s.id), t('user.deleted'))}
          >
            <Button size="small" type="link" danger loading={busy === `del-${s.id}`} data-testid={`sub-delete-${s.id}`}>
              {t('user.delete')}
            </Button>
          </Popconfirm>
        </Flex>
      ),
    },
  ];

  return (
    <Modal
      open={open}
      title={t('user.title', { name: user?.username ?? '' })}
      onCancel={onClose}
      footer={<Button onClick={onClose}>{t('common:action.close')}</Button>}
      width={920}
      destroyOnHidden
      data-testid="user-subscriptions-modal"
    >
      <Typography.Text type="secondary">{t('user.bindLabel')}</Typography.Text>
      <Flex gap={8} style={{ margin: '6px 0 16px' }}>
        <Select<number>
          value={planId}
          onChange={setPlanId}
          options={enabledPlans.map((p) => ({ value: p.id, label: p.title }))}
          placeholder={t('user.bindPlaceholder')}
          loading={plans.isLoading}
          style={{ flex: 1, minWidth: 0 }}
          aria-label={t('user.bindLabel')}
          data-testid="sub-bind-select"
        />
        <Button
          type="primary"
          disabled={planId === undefined}
          loading={busy === 'bind'}
          onClick={bind}
          data-testid="sub-bind-submit"
        >
          {t('user.bind')}
        </Button>
      </Flex>
      <Table<UserSubscription>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={subs.data ?? []}
        loading={subs.isFetching}
        scroll={{ x: 'max-content' }}
        pagination={false}
        locale={{ emptyText: subs.isError ? t('loadFailed') : t('user.empty') }}
        onRow={(s) => ({ 'data-testid': `sub-row-${s.id}` }) as HTMLAttributes<HTMLElement>}
      />
    </Modal>
  );
}
