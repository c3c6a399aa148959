import type { OptionKey } from '@tollway/shared';
import { Alert, Col } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import type { BeforeSave } from '../model/useSectionSave';

const PAYMENT: OptionKey[] = [
  'PayAddress',
  'EpayId',
  'EpayKey',
  'Price',
  'MinTopUp',
  'TopupGroupRatio',
  'StripeApiSecret',
  'StripeWebhookSecret',
  'StripePriceId',
  'StripeUnitPrice',
  'StripeMinTopUp',
  'StripePromotionCodesEnabled',
  'CreemApiKey',
  'CreemWebhookSecret',
  'CreemProducts',
  'CreemTestMode',
];

/** Payment settings of the wallet's top-up: Epay, Stripe, Creem. The server address must be saved first. */
export function PaymentSection() {
  const { t } = useTranslation('settings');
  const beforeSave = useCallback<BeforeSave>(
    (_values, _changes, options) =>
      (options.ServerAddress ?? '').trim() === '' ? t('validation.serverAddressFirst') : null,
    [t],
  );
  return (
    <SettingsSection
      id="payment"
      title={t('section.payment.title')}
      description={t('section.payment.desc')}
      keys={PAYMENT}
      beforeSave={beforeSave}
    >
      <Col span={24}>
        <Alert type="info" showIcon title={t('section.payment.notice')} style={{ marginBottom: 16 }} />
      </Col>
      <OptionField k="PayAddress" placeholder="https://pay.example.com" />
      <OptionField k="EpayId" />
      <OptionField k="EpayKey" />
      <OptionField k="Price" step={0.1} min={0} />
      <OptionField k="MinTopUp" min={0} />
      <OptionField k="TopupGroupRatio" />
      <OptionField k="StripeApiSecret" />
      <OptionField k="StripeWebhookSecret" />
      <OptionField k="StripePriceId" placeholder="price_…" />
      <OptionField k="StripeUnitPrice" step={0.1} min={0} />
      <OptionField k="StripeMinTopUp" min={0} />
      <OptionField k="StripePromotionCodesEnabled" />
      <OptionField k="CreemApiKey" />
      <OptionField k="CreemWebhookSecret" />
      <OptionField k="CreemProducts" />
      <OptionField k="CreemTestMode" />
    </SettingsSection>
  );
}
