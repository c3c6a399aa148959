import { fetchDomainList, fetchIpList, fetchPortList, type OptionKey } from '@tollway/shared';
import { Col, Form, Input, Radio } from 'antd';
import { useState } from 'react';
import { useController } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { issueText } from '../../../lib/issue-text';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { fieldName, labelKey } from '../model/options';
import { useFieldValue } from '../model/useFieldValue';

const KEYS: OptionKey[] = [
  'fetch_setting.enable_ssrf_protection',
  'fetch_setting.allow_private_ip',
  'fetch_setting.apply_ip_filter_for_domain',
  'fetch_setting.domain_filter_mode',
  'fetch_setting.domain_list',
  'fetch_setting.ip_filter_mode',
  'fetch_setting.ip_list',
  'fetch_setting.allowed_ports',
];

const LISTS: [OptionKey, z.ZodType][] = [
  ['fetch_setting.domain_list', fetchDomainList],
  ['fetch_setting.ip_list', fetchIpList],
  ['fetch_setting.allowed_ports', fetchPortList],
];

/**
 * The list fields are edited as text, so their errors name the bad entry and its rule (not the JSON), in the
 * viewer's language (the settings page loads the `errors` texts).
 */
const RULES: Partial<Record<OptionKey, z.ZodType>> = Object.fromEntries(
  LISTS.map(([k, schema]) => [
    k,
    z.string().superRefine((text, ctx) => {
      const entries = entriesOf(text);
      const issue = schema.safeParse(entries).error?.issues[0];
      if (issue) ctx.addIssue({ code: 'custom', message: issueText(issue, entries[Number(issue.path[0])] ?? k) });
    }),
  ]),
);

/** The entries of a stored JSON array text ([] when it is not one). */
function entriesOf(text: unknown): string[] {
  try {
    const v: unknown = JSON.parse(String(text ?? '[]'));
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
}

/** A JSON string-array option edited as text: one entry per line, or comma separated. */
function ListField({
  k,
  comma,
  disabled,
  placeholder,
}: {
  k: OptionKey;
  comma?: boolean;
  disabled: boolean;
  placeholder: string;
}) {
  const { t } = useTranslation('settings');
  const { field, fieldState } = useController({ name: fieldName(k) });
  const join = comma ? ', ' : '\n';
  const [draft, setDraft] = useState(() => entriesOf(field.value).join(join));
  const change = (text: string) => {
    setDraft(text);
    const entries = text
      .split(comma ? /[,\s]+/ : /\n/)
      .map((s) => s.trim())
      .filter(Boolean);
    field.onChange(JSON.stringify(entries));
  };
  const lk = labelKey(k);
  const common = {
    id: `opt-${field.name}`,
    'data-testid': `option-${k}`,
    value: draft,
    disabled,
    placeholder,
    onBlur: field.onBlur,
  };
  return (
    <Col xs={24} md={12}>
      <Form.Item
        label={t(`field.${lk}`)}
        htmlFor={common.id}
        validateStatus={fieldState.error ? 'error' : undefined}
        help={fieldState.error?.message}
        extra={t(`help.${lk}`)}
      >
        {comma ? (
          <Input {...common} onChange={(e) => change(e.target.value)} />
        ) : (
          <Input.TextArea {...common} autoSize={{ minRows: 3, maxRows: 10 }} onChange={(e) => change(e.target.value)} />
        )}
      </Form.Item>
    </Col>
  );
}

/** Allow-list or deny-list choice of a boolean filter-mode option (true = allow-list, as in new-api). */
function ModeField({ k, disabled }: { k: OptionKey; disabled: boolean }) {
  const { t } = useTranslation('settings');
  const { field } = useController({ name: fieldName(k) });
  return (
    <Col xs={24} md={12}>
      <Form.Item label={t(`field.${labelKey(k)}`)}>
        <Radio.Group
          data-testid={`option-${k}`}
          value={field.value === true ? 'allow' : 'deny'}
          disabled={disabled}
          onChange={(e) => field.onChange(e.target.value === 'allow')}
          optionType="button"
          options={[
            { value: 'deny', label: t('fetch.denyList') },
            { value: 'allow', label: t('fetch.allowList') },
          ]}
        />
      </Form.Item>
    </Col>
  );
}

function FetchFields() {
  const off = useFieldValue('fetch_setting.enable_ssrf_protection') !== true;
  return (
    <>
      <OptionField k="fetch_setting.enable_ssrf_protection" />
      <OptionField k="fetch_setting.allow_private_ip" disabled={off} />
      <OptionField k="fetch_setting.apply_ip_filter_for_domain" disabled={off} />
      <ModeField k="fetch_setting.domain_filter_mode" disabled={off} />
      <ModeField k="fetch_setting.ip_filter_mode" disabled={off} />
      <ListField k="fetch_setting.domain_list" disabled={off} placeholder={'example.com\n*.example.org'} />
      <ListField k="fetch_setting.ip_list" disabled={off} placeholder={'10.0.0.0/8\n203.0.113.7'} />
      <ListField k="fetch_setting.allowed_ports" comma disabled={off} placeholder="80, 443, 8000-9000" />
    </>
  );
}

/** The outbound request guard (new-api's fetch settings): what user-supplied URLs such as webhooks may reach. */
export function FetchSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="fetch"
      title={t('section.fetch.title')}
      description={t('section.fetch.desc')}
      keys={KEYS}
      rules={RULES}
    >
      <FetchFields />
    </SettingsSection>
  );
}
