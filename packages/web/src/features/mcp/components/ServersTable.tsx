import { ToolOutlined } from '@ant-design/icons';
import { Flex, Table, Tag, Typography, type TableColumnsType } from 'antd';
import type { HTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import { cardColumns, cardLayout } from '../../../components/cardTable';
import { actionsColumn } from '../../../components/RecordTable';
import { RecordActions } from '../../../components/RecordActions';
import { TipButton } from '../../../components/TipButton';
import { useQuotaFormat } from '../../../lib/self';
import { useIsMobile } from '../../../lib/useIsMobile';
import type { McpServerHealth } from '@tollway/shared';
import type { McpServer } from '../api';
import { HealthTag } from './HealthTag';

interface Props {
  items: McpServer[];
  /** Each server's breaker by id (absent until loaded). */
  health: Map<number, McpServerHealth>;
  loading: boolean;
  onToggle: (s: McpServer) => Promise<void>;
  onEdit: (s: McpServer) => void;
  onDelete: (s: McpServer) => Promise<void>;
  onTools: (s: McpServer) => void;
}

/** Where a server is reached: its URL, or its command and arguments. */
const endpointOf = (s: McpServer) => (s.transport === 'stdio' ? [s.command, ...s.args].join(' ') : s.url);

/** The registered servers: where each is reached, its price, limits and rules; cards on a phone. */
export function ServersTable({ items, health, loading, onToggle, onEdit, onDelete, onTools }: Props) {
  const { t } = useTranslation('mcp');
  const quota = useQuotaFormat();
  const mobile = useIsMobile();
  const limit = (n: number) => (n > 0 ? String(n) : t('value.none'));

  const columns: TableColumnsType<McpServer> = [
    {
      title: t('col.name'),
      key: 'name',
      width: 170,
      render: (_, s) => (
        <Typography.Text strong ellipsis={{ tooltip: s.name }}>
          {s.name}
        </Typography.Text>
      ),
    },
    {
      title: t('col.transport'),
      key: 'transport',
      width: 120,
      render: (_, s) => <Tag>{t(`transport.${s.transport}`)}</Tag>,
    },
    {
      title: t('col.endpoint'),
      key: 'endpoint',
      width: 280,
      render: (_, s) => (
        <Typography.Text code ellipsis={{ tooltip: endpointOf(s) }} style={{ maxWidth: '100%' }}>
          {endpointOf(s)}
        </Typography.Text>
      ),
    },
    {
      title: t('col.health'),
      key: 'health',
      width: 110,
      render: (_, s) => <HealthTag health={health.get(s.id)} enabled={s.enabled} />,
    },
    {
      title: t('col.price'),
      key: 'price',
      width: 110,
      render: (_, s) => (s.price > 0 ? quota(s.price) : t('value.free')),
    },
    {
      title: t('col.limits'),
      key: 'limits',
      width: 170,
      render: (_, s) => (
        <Flex vertical gap={0}>
          <span>{t('value.perMinute', { value: limit(s.rate_limit) })}</span>
          <span>{t('value.concurrent', { value: limit(s.max_concurrent) })}</span>
        </Flex>
      ),
    },
    {
      title: t('col.rules'),
      key: 'rules',
      width: 190,
      render: (_, s) => (
        <Flex wrap gap={4}>
          {s.read_only ? <Tag color="blue">{t('tag.readOnly')}</Tag> : null}
          {s.log_arguments ? <Tag color="orange">{t('tag.logArguments')}</Tag> : null}
          {s.allow_tools || s.deny_tools ? <Tag>{t('tag.toolLists')}</Tag> : null}
          {s.oauth_token_url ? <Tag>{t('tag.oauth')}</Tag> : null}
          {s.allow_groups ? <Tag>{t('tag.groups', { groups: s.allow_groups })}</Tag> : null}
          {Object.keys(s.headers).length > 0 ? (
            <Tag>{t('tag.headers', { count: Object.keys(s.headers).length })}</Tag>
          ) : null}
        </Flex>
      ),
    },
    actionsColumn<McpServer>(t('col.actions'), 150, 'tw-mcp-actions-cell', mobile, (s) => (
      <RecordActions
        ns="mcp"
        testPrefix="mcp"
        id={s.id}
        name={s.name}
        enabled={s.enabled}
        onToggle={() => onToggle(s)}
        onEdit={() => onEdit(s)}
        onDelete={() => onDelete(s)}
      >
        <TipButton
          subtle
          label={t('actions.tools')}
          icon={<ToolOutlined />}
          onClick={() => onTools(s)}
          data-testid={`mcp-tools-${s.id}`}
        />
      </RecordActions>
    )),
  ];

  return (
    <Table<McpServer>
      rowKey="id"
      size="middle"
      columns={cardColumns(columns, mobile)}
      dataSource={items}
      loading={loading}
      {...cardLayout(mobile, 1300)}
      rowClassName={(s) => (s.enabled ? '' : 'tw-mcp-row-off')}
      onRow={(s) => ({ 'data-testid': `mcp-row-${s.id}` }) as HTMLAttributes<HTMLElement>}
      pagination={false}
    />
  );
}
