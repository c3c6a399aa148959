import { useQueryClient } from '@tanstack/react-query';
import {
  BUDGET_ALERT_PERCENT_MAX,
  BUDGET_ALERTS_MAX,
  BUDGET_LEVELS,
  BUDGET_PERIODS,
  budgetBody,
  TAG_LENGTH_MAX,
  type Budget,
  type BudgetLevel,
  type BudgetPeriod,
} from '@tollway/shared';
import { App, Checkbox, Form, Input, InputNumber, Radio, Select, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ActionModal } from '../../../components/ActionModal';
import { useQuotaFormat } from '../../../lib/self';
import { useSubmit } from '../../../lib/useSubmit';
import { createBudget, orgKey, updateBudget, useMembers, useOrgTokens, useTeams } from '../api';
import { useOrgView } from '../context';

interface Draft {
  level: BudgetLevel;
  target_id: number;
  tag: string;
  period: BudgetPeriod;
  limit_quota: number | null;
  hard: boolean;
  alert_percents: string[];
  alert_email: boolean;
  alert_webhook: boolean;
}

const EMPTY: Draft = {
  level: 'team',
  target_id: 0,
  tag: '',
  period: 'month',
  limit_quota: null,
  hard: true,
  alert_percents: ['80'],
  alert_email: true,
  alert_webhook: false,
};

const draftOf = (b: Budget): Draft => ({
  level: b.level,
  target_id: b.target_id,
  tag: b.tag,
  period: b.period,
  limit_quota: b.limit_quota,
  hard: b.hard,
  alert_percents: b.alert_percents.map(String),
  alert_email: b.alert_email,
  alert_webhook: b.alert_webhook,
});

/** Create (budget null) or edit a budget: level, then its target (team, member or token picked; a tag typed). */
export function BudgetModal({ budget, onClose }: { budget: Budget | null | undefined; onClose: () => void }) {
  const { t } = useTranslation('organizations');
  const { org } = useOrgView();
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const fmt = useQuotaFormat();
  const open = budget !== undefined;
  const [d, setD] = useState<Draft>(EMPTY);
  const [error, setError] = useState<string>();
  const { loading, run } = useSubmit();
  const teams = useTeams(org.id, open);
  const members = useMembers(org.id, open);
  const tokens = useOrgTokens(org.id, open && d.level === 'token');
  useEffect(() => {
    if (open) {
      setD(budget ? draftOf(budget) : EMPTY);
      setError(undefined);
    }
  }, [open, budget]);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setD((p) => ({ ...p, [k]: v }));

  const targets =
    d.level === 'team'
      ? (teams.data ?? []).map((x) => ({ value: x.id, label: x.name }))
      : d.level === 'member'
        ? (members.data ?? []).map((x) => ({ value: x.user_id, label: x.display_name || x.username }))
        : d.level === 'token'
          ? (tokens.data ?? []).map((x) => ({ value: x.id, label: `${x.name} (${x.member_name})` }))
          : [];

  const save = () => {
    const parsed = budgetBody.safeParse({
      level: d.level,
      target_id: d.level === 'org' || d.level === 'tag' ? 0 : d.target_id,
      tag: d.level === 'tag' ? d.tag.trim() : '',
      period: d.period,
      limit_quota: d.limit_quota ?? 0,
      hard: d.hard,
      alert_percents: d.alert_percents.map(Number),
      alert_email: d.alert_email,
      alert_webhook: d.alert_webhook,
    });
    if (!parsed.success) {
      setError(
        parsed.error.issues
          .map((i) =>
            i.path[0] === 'target_id' || i.path[0] === 'tag'
              ? t('budgets.pickTarget')
              : `${i.path.join('.')}: ${i.message}`,
          )
          .join('; '),
      );
      return Promise.resolve();
    }
    setError(undefined);
    return run(async () => {
      if (budget) await updateBudget(org.id, budget.id, parsed.data);
      else await createBudget(org.id, parsed.data);
      await queryClient.invalidateQueries({ queryKey: orgKey(org.id, 'budgets') });
      void message.success(t('budgets.saved'));
      onClose();
    });
  };

  return (
    <ActionModal
      open={open}
      title={budget ? t('budgets.editTitle') : t('budgets.addTitle')}
      okText={t('common.save')}
      okTestid="budget-save"
      loading={loading}
      onOk={save}
      onClose={onClose}
      destroyOnHidden
    >
      <Form layout="vertical">
        <Form.Item label={t('budgets.level')}>
          <Select
            aria-label={t('budgets.level')}
            value={d.level}
            onChange={(v) => setD((p) => ({ ...p, level: v, target_id: 0, tag: '' }))}
            options={BUDGET_LEVELS.map((l) => ({ value: l, label: t(`budgets.levels.${l}`) }))}
            data-testid="budget-level"
          />
        </Form.Item>
        {d.level === 'tag' ? (
          <Form.Item label={t('budgets.tag')} htmlFor="budget-tag" required>
            <Input
              id="budget-tag"
              value={d.tag}
              maxLength={TAG_LENGTH_MAX}
              placeholder={t('budgets.tagPh')}
              onChange={(e) => set('tag', e.target.value)}
              data-testid="budget-tag"
            />
          </Form.Item>
        ) : d.level !== 'org' ? (
          <Form.Item label={t('budgets.target')} required>
            <Select
              aria-label={t('budgets.target')}
              value={d.target_id || null}
              placeholder={t('budgets.pickTarget')}
              showSearch={{ optionFilterProp: 'label' }}
              onChange={(v: number) => set('target_id', v)}
              options={targets}
              data-testid="budget-target"
            />
          </Form.Item>
        ) : null}
        <Form.Item label={t('budgets.period')}>
          <Select
            aria-label={t('budgets.period')}
            value={d.period}
            onChange={(v) => set('period', v)}
            options={BUDGET_PERIODS.map((p) => ({ value: p, label: t(`budgets.periods.${p}`) }))}
            data-testid="budget-period"
          />
        </Form.Item>
        <Form.Item
          label={t('budgets.limit')}
          htmlFor="budget-limit"
          required
          extra={d.limit_quota ? fmt(d.limit_quota) : undefined}
        >
          <InputNumber
            id="budget-limit"
            min={1}
            precision={0}
            value={d.limit_quota}
            onChange={(v) => set('limit_quota', v)}
            style={{ width: '100%' }}
            data-testid="budget-limit"
          />
        </Form.Item>
        <Form.Item label={t('budgets.mode')}>
          <Radio.Group
            value={d.hard}
            onChange={(e) => set('hard', e.target.value as boolean)}
            options={[
              { value: true, label: t('budgets.hard') },
              { value: false, label: t('budgets.soft') },
            ]}
            data-testid="budget-hard"
          />
        </Form.Item>
        <Form.Item
          label={t('budgets.alerts')}
          extra={t('budgets.alertsHint', { max: BUDGET_ALERTS_MAX, limit: BUDGET_ALERT_PERCENT_MAX })}
        >
          <Select
            mode="tags"
            aria-label={t('budgets.alerts')}
            value={d.alert_percents}
            placeholder={t('budgets.alertsPh')}
            tokenSeparators={[',', ' ']}
            maxCount={BUDGET_ALERTS_MAX}
            onChange={(v: string[]) =>
              set(
                'alert_percents',
                v.filter((x) => /^\d+$/.test(x) && Number(x) >= 1 && Number(x) <= BUDGET_ALERT_PERCENT_MAX),
              )
            }
            options={['50', '80', '100'].map((p) => ({ value: p, label: `${p}%` }))}
            data-testid="budget-alerts"
          />
        </Form.Item>
        <Form.Item>
          <Checkbox checked={d.alert_email} onChange={(e) => set('alert_email', e.target.checked)}>
            {t('budgets.alertEmail')}
          </Checkbox>
          <Checkbox checked={d.alert_webhook} onChange={(e) => set('alert_webhook', e.target.checked)}>
            {t('budgets.alertWebhook')}
          </Checkbox>
        </Form.Item>
        {error && (
          <Typography.Text type="danger" data-testid="budget-error">
            {error}
          </Typography.Text>
        )}
      </Form>
    </ActionModal>
  );
}
