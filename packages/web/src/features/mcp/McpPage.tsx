import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex } from 'antd';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListCard } from '../../components/ListCard';
import { PageHeader } from '../../components/PageHeader';
import { attempt } from '../../lib/attempt';
import {
  deleteServer,
  fetchHealth,
  fetchServers,
  MCP_HEALTH_KEY,
  MCP_SERVERS_KEY,
  updateServer,
  type McpServer,
} from './api';
import { ConnectHint } from './components/ConnectHint';
import { ServerDrawer } from './components/ServerDrawer';
import { ServersTable } from './components/ServersTable';
import { ToolsDrawer } from './components/ToolsDrawer';
import { UsagePanel } from './components/UsagePanel';
import './mcp.css';

/** /admin/mcp: the MCP servers' registry, each server's tools, and the tool calls made (docs/operating/mcp.md). */
export default function McpPage() {
  const { t } = useTranslation('mcp');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [drawer, setDrawer] = useState<number | null | undefined>(undefined);
  const [toolsOf, setToolsOf] = useState<McpServer | undefined>(undefined);
  const servers = useQuery({ queryKey: MCP_SERVERS_KEY, queryFn: fetchServers });
  const health = useQuery({ queryKey: MCP_HEALTH_KEY, queryFn: fetchHealth });
  const healthById = useMemo(() => new Map((health.data ?? []).map((h) => [h.id, h])), [health.data]);
  const refresh = useCallback(async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: MCP_SERVERS_KEY }),
      queryClient.invalidateQueries({ queryKey: MCP_HEALTH_KEY }),
    ]);
  }, [queryClient]);

  const onToggle = (s: McpServer) =>
    attempt(async () => {
      await updateServer(s.id, { enabled: !s.enabled });
      void message.success(s.enabled ? t('toast.disabled') : t('toast.enabled'));
      void refresh();
    });
  const onDelete = (s: McpServer) =>
    attempt(async () => {
      await deleteServer(s.id);
      void message.success(t('toast.deleted'));
      void refresh();
    });

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <ConnectHint />
      <ListCard className="tw-mcp-servers">
        <Flex wrap gap={8} justify="flex-end" style={{ marginBottom: 16 }}>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setDrawer(null)} data-testid="mcp-add">
            {t('actions.add')}
          </Button>
          <Button icon={<ReloadOutlined />} onClick={() => void refresh()} loading={servers.isFetching}>
            {t('actions.refresh')}
          </Button>
        </Flex>
        <ServersTable
          items={servers.data ?? []}
          health={healthById}
          loading={servers.isFetching}
          onToggle={onToggle}
          onEdit={(s) => setDrawer(s.id)}
          onDelete={onDelete}
          onTools={setToolsOf}
        />
      </ListCard>
      <div style={{ marginTop: 16 }}>
        <UsagePanel servers={servers.data ?? []} />
      </div>
      <ServerDrawer
        target={drawer}
        onClose={() => setDrawer(undefined)}
        onSaved={() => {
          setDrawer(undefined);
          void refresh();
        }}
      />
      <ToolsDrawer server={toolsOf} onClose={() => setToolsOf(undefined)} />
    </>
  );
}
