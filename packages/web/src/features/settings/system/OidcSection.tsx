import { CloudDownloadOutlined } from '@ant-design/icons';
import type { OptionKey } from '@tollway/shared';
import { App, Button, Col, Form } from 'antd';
import { useMemo, useState } from 'react';
import { useFormContext } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { fieldName } from '../model/options';
import { useOptions } from '../model/useOptions';
import { ApiFailure, apiPost } from '../../../lib/api';

/** What POST /api/oauth/oidc/discovery answers: the provider's endpoints ('' when the document names none). */
interface OidcDiscovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
}

const OIDC: OptionKey[] = [
  'oidc.enabled',
  'oidc.client_id',
  'oidc.client_secret',
  'oidc.well_known',
  'oidc.authorization_endpoint',
  'oidc.token_endpoint',
  'oidc.user_info_endpoint',
];

const HTTP_URL = /^https?:\/\//i;

/** Has the server fetch the provider's well-known document and fills the three endpoints. */
function FetchWellKnown() {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const { getValues, setValue } = useFormContext();
  const [loading, setLoading] = useState(false);

  const run = async () => {
    const url = String(getValues(fieldName('oidc.well_known')) ?? '').trim();
    if (!HTTP_URL.test(url)) {
      void message.error(t('oidc.badUrl'));
      return;
    }
    setLoading(true);
    try {
      // The server fetches the document (through its outbound guard): this page may connect only to its own site.
      const doc = (await apiPost<OidcDiscovery>('/api/oauth/oidc/discovery', { well_known_url: url })).data;
      const fill = (key: OptionKey, v: string | undefined) => {
        if (v) setValue(fieldName(key), v, { shouldDirty: true, shouldValidate: true });
      };
      fill('oidc.authorization_endpoint', doc?.authorization_endpoint);
      fill('oidc.token_endpoint', doc?.token_endpoint);
      fill('oidc.user_info_endpoint', doc?.userinfo_endpoint);
      void message.success(t('oidc.fetched'));
    } catch (err) {
      // The API layer has already shown the server's reason.
      if (!(err instanceof ApiFailure)) void message.error(t('oidc.fetchFailed'));
    } finally {
      setLoading(false);
    }
  };

  return (
    <Col xs={24} md={12}>
      <Form.Item label=" " colon={false}>
        <Button
          icon={<CloudDownloadOutlined />}
          loading={loading}
          onClick={() => void run()}
          data-testid="oidc-fetch-well-known"
        >
          {t('oidc.fetch')}
        </Button>
      </Form.Item>
    </Col>
  );
}

/** OpenID Connect sign-in: client credentials, well-known URL (http:// or https://) and endpoints. */
export function OidcSection() {
  const { t } = useTranslation('settings');
  const server = useOptions().data?.ServerAddress || t('yourAddress');
  const rules = useMemo(
    () => ({
      'oidc.well_known': z
        .string()
        .trim()
        .refine((v) => v === '' || HTTP_URL.test(v), t('oidc.badUrl')),
    }),
    [t],
  );
  return (
    <SettingsSection
      id="oidc"
      title={t('section.oidc.title')}
      description={t('section.oidc.desc', { callback: `${server}/oauth/oidc` })}
      keys={OIDC}
      rules={rules}
    >
      <OptionField k="oidc.enabled" span="full" />
      <OptionField k="oidc.client_id" />
      <OptionField k="oidc.client_secret" />
      <OptionField k="oidc.well_known" placeholder="https://idp.example.com/.well-known/openid-configuration" />
      <FetchWellKnown />
      <OptionField k="oidc.authorization_endpoint" />
      <OptionField k="oidc.token_endpoint" />
      <OptionField k="oidc.user_info_endpoint" />
    </SettingsSection>
  );
}
