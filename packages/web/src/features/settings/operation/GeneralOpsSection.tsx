import type { OptionKey } from '@tollway/shared';
import { Alert, Col } from 'antd';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';

const KEYS: OptionKey[] = [
  'TopUpLink',
  'general_setting.docs_link',
  'QuotaPerUnit',
  'RetryTimes',
  'DisplayInCurrencyEnabled',
  'DisplayTokenStatEnabled',
  'DefaultCollapseSidebar',
  'DemoSiteEnabled',
  'SelfUseModeEnabled',
];

/** Links, quota per unit (changing it is warned against), retries and display switches. */
export function GeneralOpsSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="operation-general" title={t('section.opGeneral.title')} keys={KEYS}>
      <OptionField k="TopUpLink" placeholder="https://shop.example.com" />
      <OptionField k="general_setting.docs_link" placeholder="https://docs.example.com" />
      <Col span={24}>
        <Alert type="warning" showIcon title={t('section.opGeneral.quotaWarning')} style={{ marginBottom: 16 }} />
      </Col>
      <OptionField k="QuotaPerUnit" step={1000} />
      <OptionField k="RetryTimes" min={0} />
      <OptionField k="DisplayInCurrencyEnabled" />
      <OptionField k="DisplayTokenStatEnabled" />
      <OptionField k="DefaultCollapseSidebar" />
      <OptionField k="DemoSiteEnabled" />
      <OptionField k="SelfUseModeEnabled" />
    </SettingsSection>
  );
}
