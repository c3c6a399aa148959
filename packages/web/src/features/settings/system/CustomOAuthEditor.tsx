import { CloudDownloadOutlined } from '@ant-design/icons';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  CUSTOM_OAUTH_BOOL_FIELDS,
  CUSTOM_OAUTH_STRING_FIELDS,
  CUSTOM_OAUTH_TEXT_FIELDS,
  type CustomOAuthProvider,
} from '@tollway/shared';
import { App, Button, Col, Divider, Form, Input, Row, Select, Switch } from 'antd';
import { useState } from 'react';
import { useForm, useWatch, type Path, type Resolver } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { EditorDrawer } from '../../../components/EditorDrawer';
import { FormField } from '../../../components/FormField';
import { ApiFailure, apiPost, apiPut } from '../../../lib/api';

const HTTP_URL = /^https?:\/\//i;

const schema = z.object({
  ...Object.fromEntries(
    [...Object.keys(CUSTOM_OAUTH_STRING_FIELDS), ...CUSTOM_OAUTH_TEXT_FIELDS].map((k) => [k, z.string()]),
  ),
  ...Object.fromEntries(CUSTOM_OAUTH_BOOL_FIELDS.map((k) => [k, z.boolean()])),
  name: z.string().trim().min(1, 'customOAuth:editor.required'),
  slug: z.string().trim().min(1, 'customOAuth:editor.required'),
  client_secret: z.string(),
  auth_style: z.number(),
});

type Values = Record<string, string | boolean | number> & { auth_style: number; kind: string; client_secret: string };

function initialValues(p: CustomOAuthProvider | undefined): Values {
  const v: Record<string, string | boolean | number> = { client_secret: '', auth_style: p?.auth_style ?? 0 };
  for (const k of [...Object.keys(CUSTOM_OAUTH_STRING_FIELDS), ...CUSTOM_OAUTH_TEXT_FIELDS])
    v[k] = String((p as Record<string, unknown> | undefined)?.[k] ?? '');
  for (const k of CUSTOM_OAUTH_BOOL_FIELDS) v[k] = Boolean((p as Record<string, unknown> | undefined)?.[k]);
  // new-api's defaults, shown rather than filled in by the server after saving.
  const defaults: Record<string, string> = {
    kind: 'oauth_code',
    scopes: 'openid profile email',
    user_id_field: 'sub',
    username_field: 'preferred_username',
    display_name_field: 'name',
    email_field: 'email',
    group_mapping_mode: 'explicit_only',
    role_mapping_mode: 'explicit_only',
    jwt_identity_mode: 'claims',
    jwt_acquire_mode: 'direct_token',
    ticket_exchange_method: 'GET',
    ticket_exchange_payload_mode: 'query',
  };
  for (const [k, d] of Object.entries(defaults)) if (!v[k]) v[k] = d;
  if (!p) v.enabled = true;
  return v as Values;
}

interface Discovery {
  well_known_url: string;
  discovery: Record<string, unknown>;
}

/** The drawer editing one provider: fields by kind, discovery filling the endpoints, the secret write-only. */
export function ProviderEditor({
  provider,
  onClose,
  onSaved,
}: {
  provider: CustomOAuthProvider | undefined;
  onClose: () => void;
  onSaved: () => Promise<void>;
}) {
  const { t } = useTranslation('customOAuth');
  const { message } = App.useApp();
  // The schema is built from the shared field lists, so its inferred type is a loose record.
  const form = useForm<Values>({
    resolver: zodResolver(schema) as unknown as Resolver<Values>,
    defaultValues: initialValues(provider),
  });
  const { control, handleSubmit, getValues, setValue } = form;
  const kind = String(useWatch({ control, name: 'kind' }));
  const acquire = String(useWatch({ control, name: 'jwt_acquire_mode' }));
  const [saving, setSaving] = useState(false);
  const [discovering, setDiscovering] = useState(false);

  const text = (name: string, opts: { area?: boolean; placeholder?: string; span?: number; extra?: string } = {}) => (
    <Col xs={24} md={opts.span ?? 12} key={name}>
      <FormField
        control={control}
        name={name as Path<Values>}
        label={t(`field.${name}`)}
        extra={opts.extra}
        render={(f) =>
          opts.area ? (
            <Input.TextArea
              value={String(f.value ?? '')}
              onChange={f.onChange}
              autoSize={{ minRows: 2, maxRows: 8 }}
              placeholder={opts.placeholder}
              data-testid={`custom-oauth-field-${name}`}
            />
          ) : (
            <Input
              value={String(f.value ?? '')}
              onChange={f.onChange}
              placeholder={opts.placeholder}
              type={name === 'client_secret' ? 'password' : undefined}
              autoComplete="off"
              data-testid={`custom-oauth-field-${name}`}
            />
          )
        }
      />
    </Col>
  );
  const toggle = (name: string) => (
    <Col xs={24} md={12} key={name}>
      <FormField
        control={control}
        name={name as Path<Values>}
        label={t(`field.${name}`)}
        render={(f) => (
          <Switch checked={Boolean(f.value)} onChange={f.onChange} data-testid={`custom-oauth-field-${name}`} />
        )}
      />
    </Col>
  );
  const choice = (name: string, options: { value: string | number; label: string }[]) => (
    <Col xs={24} md={12} key={name}>
      <FormField
        control={control}
        name={name as Path<Values>}
        label={t(`field.${name}`)}
        render={(f) => (
          <Select
            value={f.value as string | number}
            onChange={f.onChange}
            options={options}
            data-testid={`custom-oauth-field-${name}`}
          />
        )}
      />
    </Col>
  );
  const modes = ['explicit_only', 'mapping_first'].map((m) => ({ value: m, label: t(`mode.${m}`) }));

  const discover = async () => {
    const url = String(getValues('well_known') ?? '').trim();
    if (!HTTP_URL.test(url)) return void message.error(t('editor.badUrl'));
    setDiscovering(true);
    try {
      const body = url.includes('/.well-known/') ? { well_known_url: url } : { issuer_url: url };
      const found = await apiPost<Discovery>('/api/custom-oauth-provider/discovery', body);
      const doc = found.data?.discovery ?? {};
      const fill = (field: string, key: string) => {
        const v = doc[key];
        if (typeof v === 'string' && v) setValue(field as Path<Values>, v, { shouldDirty: true });
      };
      fill('authorization_endpoint', 'authorization_endpoint');
      fill('token_endpoint', 'token_endpoint');
      fill('user_info_endpoint', 'userinfo_endpoint');
      fill('jwks_url', 'jwks_uri');
      fill('issuer', 'issuer');
      if (found.data?.well_known_url) setValue('well_known', found.data.well_known_url, { shouldDirty: true });
      void message.success(t('editor.discovered'));
    } catch (err) {
      if (!(err instanceof ApiFailure)) void message.error(t('login.startFailed'));
    } finally {
      setDiscovering(false);
    }
  };

  const submit = handleSubmit(async (values) => {
    const body: Record<string, unknown> = { ...values };
    if (!values.client_secret) delete body.client_secret;
    setSaving(true);
    try {
      if (provider) await apiPut(`/api/custom-oauth-provider/${provider.id}`, body);
      else await apiPost('/api/custom-oauth-provider/', body);
      await onSaved();
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
    } finally {
      setSaving(false);
    }
  });

  return (
    <EditorDrawer
      open
      title={provider ? t('editor.editTitle', { name: provider.name }) : t('editor.createTitle')}
      width={760}
      onClose={onClose}
      onSubmit={() => void submit()}
      saving={saving}
      loading={false}
      testid="custom-oauth-editor"
      submitTestid="custom-oauth-submit"
    >
      <Form layout="vertical" requiredMark={false} onFinish={() => void submit()}>
        <Divider titlePlacement="start">{t('editor.groupBasic')}</Divider>
        <Row gutter={[16, 0]}>
          {text('name')}
          {text('slug', { placeholder: 'acme-sso' })}
          {choice(
            'kind',
            ['oauth_code', 'jwt_direct', 'trusted_header'].map((k) => ({ value: k, label: t(`kind.${k}`) })),
          )}
          {toggle('enabled')}
        </Row>
        {kind !== 'trusted_header' && (
          <>
            <Divider titlePlacement="start">{t('editor.groupEndpoints')}</Divider>
            <Row gutter={[16, 0]}>
              {text('well_known', { placeholder: t('editor.discoverPlaceholder'), span: 18 })}
              <Col xs={24} md={6}>
                <Form.Item label=" " colon={false}>
                  <Button
                    block
                    icon={<CloudDownloadOutlined />}
                    loading={discovering}
                    onClick={() => void discover()}
                    data-testid="custom-oauth-discover"
                  >
                    {t('editor.discover')}
                  </Button>
                </Form.Item>
              </Col>
              {kind === 'oauth_code' && text('client_id')}
              {kind === 'oauth_code' &&
                text('client_secret', {
                  extra: provider?.has_client_secret ? t('editor.secretKept') : undefined,
                })}
              {text('authorization_endpoint')}
              {kind === 'oauth_code' && text('token_endpoint')}
              {text('user_info_endpoint')}
              {text('issuer')}
              {text('jwks_url')}
              {kind === 'jwt_direct' && text('audience')}
              {text('scopes')}
              {kind === 'oauth_code' &&
                choice(
                  'auth_style',
                  [0, 1, 2].map((v) => ({ value: v, label: t(`authStyle.${v}`) })),
                )}
              {kind === 'jwt_direct' &&
                choice(
                  'jwt_identity_mode',
                  ['claims', 'userinfo'].map((m) => ({ value: m, label: t(`identityMode.${m}`) })),
                )}
              {kind === 'jwt_direct' && text('public_key', { area: true, span: 24 })}
              {kind === 'jwt_direct' &&
                choice(
                  'jwt_acquire_mode',
                  ['direct_token', 'ticket_exchange', 'ticket_validate'].map((m) => ({
                    value: m,
                    label: t(`acquireMode.${m}`),
                  })),
                )}
              {kind === 'jwt_direct' && acquire !== 'direct_token' && (
                <>
                  {text('ticket_exchange_url')}
                  {choice(
                    'ticket_exchange_method',
                    ['GET', 'POST'].map((m) => ({ value: m, label: m })),
                  )}
                  {choice(
                    'ticket_exchange_payload_mode',
                    ['query', 'form', 'json'].map((m) => ({ value: m, label: t(`payloadMode.${m}`) })),
                  )}
                  {text('ticket_exchange_ticket_field', { placeholder: 'ticket' })}
                  {acquire === 'ticket_exchange' && text('ticket_exchange_token_field', { placeholder: 'data.token' })}
                  {text('ticket_exchange_service_field', { placeholder: 'service' })}
                  {text('ticket_exchange_extra_params', { area: true })}
                  {text('ticket_exchange_headers', { area: true })}
                </>
              )}
            </Row>
            <Divider titlePlacement="start">{t('editor.groupFields')}</Divider>
            <Row gutter={[16, 0]}>
              {[
                'user_id_field',
                'username_field',
                'display_name_field',
                'email_field',
                'group_field',
                'role_field',
              ].map((f) => text(f))}
            </Row>
          </>
        )}
        {kind === 'trusted_header' && (
          <>
            <Divider titlePlacement="start">{t('editor.groupExternal')}</Divider>
            <Row gutter={[16, 0]}>
              {text('trusted_proxy_cidrs', { span: 24, placeholder: '["10.0.0.0/8"]' })}
              {[
                'external_id_header',
                'username_header',
                'display_name_header',
                'email_header',
                'group_header',
                'role_header',
              ].map((f) => text(f))}
            </Row>
          </>
        )}
        <Divider titlePlacement="start">{t('editor.groupAccess')}</Divider>
        <Row gutter={[16, 0]}>
          {text('group_mapping', { area: true, placeholder: '{"engineering": "vip"}' })}
          {text('role_mapping', { area: true, placeholder: '{"gateway-admins": "admin"}' })}
          {choice('group_mapping_mode', modes)}
          {choice('role_mapping_mode', modes)}
          {CUSTOM_OAUTH_BOOL_FIELDS.filter((b) => b !== 'enabled').map((b) => toggle(b))}
          {text('access_policy', { area: true, span: 24 })}
          {text('access_denied_message', { span: 24 })}
        </Row>
      </Form>
    </EditorDrawer>
  );
}
