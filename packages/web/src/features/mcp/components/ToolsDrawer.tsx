import { useQuery } from '@tanstack/react-query';
import type { McpServerTool } from '@tollway/shared';
import { Alert, Drawer, Flex, Table, Tag, Typography, type TableColumnsType } from 'antd';
import type { HTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import { cardColumns, cardLayout } from '../../../components/cardTable';
import { useIsMobile } from '../../../lib/useIsMobile';
import { fetchTools, type McpServer } from '../api';

const DRAWER_WIDTH = 760;

/**
 * A server's tools as the server lists them now, and whether the server's own rules (allow/deny lists, read-only)
 * let each through; a token's, organization's or group's lists may narrow them further.
 */
export function ToolsDrawer({ server, onClose }: { server: McpServer | undefined; onClose: () => void }) {
  const { t } = useTranslation('mcp');
  const mobile = useIsMobile();
  const tools = useQuery({
    queryKey: ['mcp-tools', server?.id, server?.updated_at],
    queryFn: () => fetchTools(server!.id),
    enabled: server !== undefined,
    retry: false,
    gcTime: 0,
  });

  const columns: TableColumnsType<McpServerTool> = [
    {
      title: t('tools.name'),
      key: 'name',
      width: 200,
      render: (_, tool) => (
        <Flex vertical gap={2}>
          <Typography.Text code>{tool.name}</Typography.Text>
          {server ? (
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {`${server.name}__${tool.name}`}
            </Typography.Text>
          ) : null}
        </Flex>
      ),
    },
    {
      title: t('tools.description'),
      key: 'description',
      render: (_, tool) => (
        <Typography.Paragraph ellipsis={{ rows: 3, expandable: true, symbol: t('tools.more') }} style={{ margin: 0 }}>
          {tool.description || '—'}
        </Typography.Paragraph>
      ),
    },
    {
      title: t('tools.state'),
      key: 'state',
      width: 150,
      render: (_, tool) => (
        <Flex wrap gap={4}>
          {tool.permitted ? (
            <Tag color="success" data-testid={`mcp-tool-allowed-${tool.name}`}>
              {t('tools.allowed')}
            </Tag>
          ) : (
            <Tag color="error" data-testid={`mcp-tool-denied-${tool.name}`}>
              {t('tools.denied')}
            </Tag>
          )}
          {tool.read_only ? <Tag color="blue">{t('tag.readOnly')}</Tag> : null}
        </Flex>
      ),
    },
  ];

  return (
    <Drawer
      open={server !== undefined}
      onClose={onClose}
      title={t('tools.title', { name: server?.name ?? '' })}
      size={mobile ? '100%' : DRAWER_WIDTH}
      destroyOnHidden
      data-testid="mcp-tools-drawer"
    >
      <Typography.Paragraph type="secondary">{t('tools.hint')}</Typography.Paragraph>
      {tools.isError ? <Alert type="error" showIcon title={t('tools.failed')} data-testid="mcp-tools-failed" /> : null}
      <Table<McpServerTool>
        rowKey="name"
        size="small"
        columns={cardColumns(columns, mobile)}
        dataSource={tools.data ?? []}
        loading={tools.isFetching}
        {...cardLayout(mobile, 600)}
        onRow={(tool) => ({ 'data-testid': `mcp-tool-${tool.name}` }) as HTMLAttributes<HTMLElement>}
        pagination={false}
      />
    </Drawer>
  );
}
