import { Alert, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../lib/status';

/** The MCP endpoint on the configured server address (ServerAddress); none without one (never this page's origin). */
export function mcpEndpoint(serverAddress: string | undefined): string | undefined {
  const base = (serverAddress ?? '').trim().replace(/\/+$/, '');
  return /^https?:\/\//i.test(base) ? `${base}/mcp` : undefined;
}

/** How an MCP client connects: the /mcp URL built from ServerAddress and a token. */
export function ConnectHint() {
  const { t } = useTranslation('mcp');
  const status = useStatus();
  const url = mcpEndpoint(status.data?.server_address);
  if (!url)
    return (
      <Alert
        type="warning"
        showIcon
        style={{ marginBottom: 16 }}
        title={t('connect.noAddress')}
        data-testid="mcp-connect-hint"
      />
    );
  return (
    <Alert
      type="info"
      showIcon
      style={{ marginBottom: 16 }}
      data-testid="mcp-connect-hint"
      title={
        <span>
          {t('connect.title')}{' '}
          <Typography.Text code copyable data-testid="mcp-connect-url">
            {url}
          </Typography.Text>
        </span>
      }
      description={
        <Typography.Text type="secondary">
          {t('connect.how')}{' '}
          <Typography.Text
            code
            copyable
          >{`claude mcp add --transport http tollway ${url} --header "Authorization: Bearer sk-…"`}</Typography.Text>
        </Typography.Text>
      }
    />
  );
}
