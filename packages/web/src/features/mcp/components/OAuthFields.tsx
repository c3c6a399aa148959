import { MCP_OAUTH_CLIENT_AUTH } from '@tollway/shared';
import { Col, Input, Row, Select } from 'antd';
import type { Control } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormSection } from '../../../components/EditorForm';
import { FormField } from '../../../components/FormField';
import { STORED_VALUE, type ServerForm } from '../schema';

type TextName = 'oauth_token_url' | 'oauth_client_id' | 'oauth_scope' | 'oauth_audience';

/** A text field of the OAuth section, half a row wide unless `full`. */
function OAuthText(p: { control: Control<ServerForm>; name: TextName; label: string; extra: string; full?: boolean }) {
  return (
    <Col xs={24} sm={p.full ? 24 : 12}>
      <FormField
        control={p.control}
        name={p.name}
        label={p.label}
        extra={p.extra}
        render={(f) => <Input {...f} data-testid={`mcp-form-${p.name}`} />}
      />
    </Col>
  );
}

/**
 * OAuth 2.0 client credentials to the server (Tollway fetches a token and sends it as the bearer). A stored secret
 * is never answered: its box shows *** and the secret is kept unless a new one is typed.
 */
export function OAuthFields({ control, storedSecret }: { control: Control<ServerForm>; storedSecret: boolean }) {
  const { t } = useTranslation('mcp');
  return (
    <>
      <FormSection title={t('drawer.oauth')} />
      <Row gutter={16}>
        <OAuthText
          control={control}
          name="oauth_token_url"
          label={t('field.oauthTokenUrl')}
          extra={t('hint.oauthTokenUrl')}
          full
        />
        <OAuthText control={control} name="oauth_client_id" label={t('field.oauthClientId')} extra="" />
        <Col xs={24} sm={12}>
          <FormField
            control={control}
            name="oauth_client_secret"
            label={t('field.oauthClientSecret')}
            extra={storedSecret ? t('hint.oauthSecretKept') : ''}
            render={(f) => (
              <Input.Password
                {...f}
                autoComplete="new-password"
                placeholder={storedSecret ? STORED_VALUE : ''}
                data-testid="mcp-form-oauth_client_secret"
              />
            )}
          />
        </Col>
        <OAuthText control={control} name="oauth_scope" label={t('field.oauthScope')} extra={t('hint.oauthScope')} />
        <OAuthText
          control={control}
          name="oauth_audience"
          label={t('field.oauthAudience')}
          extra={t('hint.oauthAudience')}
        />
        <Col xs={24} sm={12}>
          <FormField
            control={control}
            name="oauth_client_auth"
            label={t('field.oauthClientAuth')}
            render={(f) => (
              <Select
                {...f}
                options={MCP_OAUTH_CLIENT_AUTH.map((v) => ({ value: v, label: t(`oauthAuth.${v}`) }))}
                data-testid="mcp-form-oauth_client_auth"
              />
            )}
          />
        </Col>
      </Row>
    </>
  );
}
