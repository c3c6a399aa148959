import { RollbackOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import type { OptionKey } from '@tollway/shared';
import { App, Button, Popconfirm } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure, api } from '../../../lib/api';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { OPTIONS_KEY } from '../model/useOptions';

const KEYS: OptionKey[] = [
  'ModelPrice',
  'ModelRatio',
  'CompletionRatio',
  'CacheRatio',
  'billing_setting.billing_mode',
  'billing_setting.billing_expr',
  'tool_price_setting.prices',
];

/** POST /api/option/rest_model_ratio after a confirm; on success the options are reloaded and `onReset` remounts the editors. */
function ResetPresets({ onReset }: { onReset: () => void }) {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);

  const run = async () => {
    setBusy(true);
    try {
      await api('POST', '/api/option/rest_model_ratio', {}, { silent: true });
      await qc.refetchQueries({ queryKey: OPTIONS_KEY });
      void message.success(t('pricing.resetDone'));
      onReset();
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
      if (err.status !== 401) void message.error(t('pricing.resetFailed'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Popconfirm
      title={t('pricing.resetTitle')}
      description={<div style={{ maxWidth: 300 }}>{t('pricing.resetBody')}</div>}
      okText={t('pricing.reset')}
      okButtonProps={{ danger: true, 'data-testid': 'ratio-reset-confirm' }}
      cancelText={t('common:action.cancel')}
      onConfirm={run}
    >
      <Button danger icon={<RollbackOutlined />} loading={busy} data-testid="ratio-reset">
        {t('pricing.reset')}
      </Button>
    </Popconfirm>
  );
}

/** The pricing maps as JSON (ratios, prices, billing modes and expressions, tool prices) (validated on blur), and the reset to the shipped preset ratios. */
export function RatioJsonSection({ onReset }: { onReset: () => void }) {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="ratio-json"
      title={t('pricing.tab.json')}
      description={t('pricing.jsonDesc')}
      keys={KEYS}
      plain
      actions={<ResetPresets onReset={onReset} />}
    >
      <OptionField k="ModelRatio" span="half" />
      <OptionField k="CompletionRatio" span="half" />
      <OptionField k="CacheRatio" span="half" />
      <OptionField k="ModelPrice" span="half" />
      <OptionField k="billing_setting.billing_mode" span="half" />
      <OptionField k="tool_price_setting.prices" span="half" />
      <OptionField k="billing_setting.billing_expr" />
    </SettingsSection>
  );
}
