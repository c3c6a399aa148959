import { PlusOutlined } from '@ant-design/icons';
import type { OptionKey } from '@tollway/shared';
import { Button, Col, Flex, Form, Input, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useController } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { fieldName } from '../model/options';

const KEYS: OptionKey[] = ['EmailDomainRestrictionEnabled', 'EmailAliasRestrictionEnabled', 'EmailDomainWhitelist'];
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

const split = (s: string) =>
  s
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean);

/** EmailDomainWhitelist as removable tags plus an add box with domain and duplicate checks. */
function DomainList() {
  const { t } = useTranslation('settings');
  const { field } = useController({ name: fieldName('EmailDomainWhitelist') });
  const domains = split((field.value as string) ?? '');
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);

  /** Adds one or more domains (comma or space separated); nothing is added if any is invalid or present. */
  const add = () => {
    const entered = draft
      .split(/[\s,]+/)
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean);
    if (entered.length === 0) return;
    const invalid = entered.find((d) => !DOMAIN.test(d));
    if (invalid) return setError(t('whitelist.invalid', { host: 'example.com' }));
    if (entered.some((d, i) => domains.includes(d) || entered.indexOf(d) !== i))
      return setError(t('whitelist.duplicate'));
    field.onChange([...domains, ...entered].join(','));
    setDraft('');
    setError(null);
  };

  return (
    <Col span={24}>
      <Form.Item
        label={t('field.EmailDomainWhitelist')}
        validateStatus={error ? 'error' : undefined}
        help={error ?? t('help.EmailDomainWhitelist')}
      >
        <Flex wrap gap={6} style={{ marginBottom: 10 }} data-testid="option-EmailDomainWhitelist-tags">
          {domains.length === 0 ? <Typography.Text type="secondary">{t('whitelist.empty')}</Typography.Text> : null}
          {domains.map((d) => (
            <Tag
              key={d}
              closable
              onClose={(e) => {
                e.preventDefault();
                field.onChange(domains.filter((x) => x !== d).join(','));
              }}
              style={{ marginInlineEnd: 0, fontSize: 13, paddingBlock: 2 }}
            >
              {d}
            </Tag>
          ))}
        </Flex>
        <Space.Compact style={{ width: '100%', maxWidth: 420 }}>
          <Input
            data-testid="option-EmailDomainWhitelist"
            value={draft}
            placeholder={t('whitelist.placeholder')}
            onChange={(e) => {
              setDraft(e.target.value);
              setError(null);
            }}
            onPressEnter={(e) => {
              e.preventDefault();
              add();
            }}
          />
          <Button icon={<PlusOutlined />} onClick={add} data-testid="option-EmailDomainWhitelist-add">
            {t('whitelist.add')}
          </Button>
        </Space.Compact>
      </Form.Item>
    </Col>
  );
}

/** Email domain restriction switches and the whitelist. */
export function EmailWhitelistSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="email-whitelist"
      title={t('section.whitelist.title')}
      description={t('section.whitelist.desc')}
      keys={KEYS}
    >
      <OptionField k="EmailDomainRestrictionEnabled" span="half" />
      <OptionField k="EmailAliasRestrictionEnabled" span="half" />
      <DomainList />
    </SettingsSection>
  );
}
