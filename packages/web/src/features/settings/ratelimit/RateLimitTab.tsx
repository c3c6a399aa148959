import type { OptionKey } from '@tollway/shared';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { OptionField } from '../components/OptionField';
import { SectionNav, type NavItem } from '../components/SectionNav';
import { SettingsSection } from '../components/SettingsSection';
import { ExemptGroupFields, useGroupRequired } from '../components/ExemptGroup';
import { useFieldValue } from '../model/useFieldValue';

const RATE_LIMIT: OptionKey[] = [
  'ModelRequestRateLimitEnabled',
  'ModelRequestRateLimitDurationMinutes',
  'ModelRequestRateLimitCount',
  'ModelRequestRateLimitSuccessCount',
];
const AUTO_RETRY: OptionKey[] = [
  'global.auto_retry_enabled',
  'global.auto_retry_count',
  'global.auto_retry_force_channel_switch',
  'global.auto_retry_status_codes',
];
const EXEMPT: OptionKey[] = ['global.rate_limit_exempt_enabled', 'global.rate_limit_exempt_group'];

/** Comma-separated status codes; x is a wildcard digit (5xx, 42x); empty means every code. */
const STATUS_CODES = /^\s*([1-5][0-9x]{2})(\s*,\s*[1-5][0-9x]{2})*\s*$/i;

const NAV: NavItem[] = [
  { id: 'ratelimit', title: 'section.ratelimit.title' },
  { id: 'auto-retry', title: 'section.autoRetry.title' },
  { id: 'ratelimit-exempt', title: 'section.exempt.title' },
];

function RateLimitFields() {
  const { t } = useTranslation('settings');
  const on = useFieldValue('ModelRequestRateLimitEnabled') === true;
  return (
    <>
      <OptionField k="ModelRequestRateLimitEnabled" span="full" />
      <OptionField
        k="ModelRequestRateLimitDurationMinutes"
        min={0}
        suffix={t('unit.minutes')}
        span="third"
        disabled={!on}
      />
      <OptionField k="ModelRequestRateLimitCount" min={0} suffix={t('unit.requests')} span="third" disabled={!on} />
      <OptionField
        k="ModelRequestRateLimitSuccessCount"
        min={1}
        suffix={t('unit.requests')}
        span="third"
        disabled={!on}
      />
    </>
  );
}

/** Per-user model request limit: total requests (0 = unlimited) and successful ones (≥ 1) per window. */
export function RateLimitSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="ratelimit"
      title={t('section.ratelimit.title')}
      description={t('section.ratelimit.desc')}
      keys={RATE_LIMIT}
    >
      <RateLimitFields />
    </SettingsSection>
  );
}

function AutoRetryFields() {
  const on = useFieldValue('global.auto_retry_enabled') === true;
  return (
    <>
      <OptionField k="global.auto_retry_enabled" span="half" />
      <OptionField k="global.auto_retry_force_channel_switch" span="half" disabled={!on} />
      <OptionField k="global.auto_retry_count" min={1} max={10} span="half" disabled={!on} />
      <OptionField k="global.auto_retry_status_codes" placeholder="5xx,4xx" span="half" disabled={!on} />
    </>
  );
}

/** Global automatic retry: on/off, count 1–10, forced channel switch, and which status codes are retried. */
export function AutoRetrySection() {
  const { t } = useTranslation('settings');
  const rules = useMemo(
    () => ({
      'global.auto_retry_status_codes': z
        .string()
        .refine((v) => v.trim() === '' || STATUS_CODES.test(v), t('validation.statusCodes')),
    }),
    [t],
  );
  return (
    <SettingsSection
      id="auto-retry"
      title={t('section.autoRetry.title')}
      description={t('section.autoRetry.desc')}
      keys={AUTO_RETRY}
      rules={rules}
    >
      <AutoRetryFields />
    </SettingsSection>
  );
}

/** Users of one group skip the model request rate limit. */
export function ExemptSection() {
  const { t } = useTranslation('settings');
  const rules = useGroupRequired('global.rate_limit_exempt_group');
  return (
    <SettingsSection
      id="ratelimit-exempt"
      title={t('section.exempt.title')}
      description={t('section.exempt.desc')}
      keys={EXEMPT}
      rules={rules}
    >
      <ExemptGroupFields
        enabledKey="global.rate_limit_exempt_enabled"
        groupKey="global.rate_limit_exempt_group"
        placeholder="bulk-ok"
      />
    </SettingsSection>
  );
}

/** The rate limit tab. */
export function RateLimitTab() {
  return (
    <>
      <SectionNav items={NAV} />
      <RateLimitSection />
      <AutoRetrySection />
      <ExemptSection />
    </>
  );
}
