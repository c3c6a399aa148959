import { SearchOutlined } from '@ant-design/icons';
import { Button, Flex, Input, Modal, Table, Tag, Tooltip, Typography } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Channel, TestResult } from '../api';
import { responseTimeColor, splitList } from '../model/status';
import type { ChannelActions } from '../model/useChannelActions';

interface Props {
  channel: Channel | null;
  actions: ChannelActions;
  onClose: () => void;
}

type Outcome = { state: 'running' } | ({ state: 'done' } & TestResult);

/** Test-model picker: the channel's models, each testable, with the result inline. */
export function TestModelDialog({ channel, actions, onClose }: Props) {
  const { t } = useTranslation('channels');
  const [filter, setFilter] = useState('');
  const [results, setResults] = useState<Record<string, Outcome>>({});
  const [runningAll, setRunningAll] = useState(false);
  const stop = useRef(false);

  useEffect(() => {
    setFilter('');
    setResults({});
    setRunningAll(false);
    stop.current = channel === null;
  }, [channel]);

  const models = useMemo(() => splitList(channel?.models), [channel]);
  const shown = models.filter((m) => m.toLowerCase().includes(filter.trim().toLowerCase()));

  const testOne = async (model: string) => {
    if (!channel) return;
    setResults((r) => ({ ...r, [model]: { state: 'running' } }));
    const res = await actions.test(channel, model, true);
    setResults((r) => ({
      ...r,
      [model]: res ? { state: 'done', ...res } : { state: 'done', success: false, message: t('test.error'), time: 0 },
    }));
  };

  const testAll = async () => {
    setRunningAll(true);
    stop.current = false;
    for (const m of shown) {
      if (stop.current) break;
      await testOne(m);
    }
    setRunningAll(false);
  };

  const close = () => {
    stop.current = true;
    onClose();
  };

  const render = (model: string) => {
    const r = results[model];
    if (!r) return <Typography.Text type="secondary">{t('test.notRun')}</Typography.Text>;
    if (r.state === 'running') return <Tag color="processing">{t('test.running')}</Tag>;
    if (r.success)
      return <Tag color={responseTimeColor(r.time * 1000)}>{t('test.ok', { time: r.time.toFixed(2) })}</Tag>;
    return (
      <Tooltip title={r.message}>
        <Typography.Text type="danger" ellipsis style={{ maxWidth: 220 }}>
          {r.message || t('test.error')}
        </Typography.Text>
      </Tooltip>
    );
  };

  return (
    <Modal
      open={channel !== null}
      title={channel ? t('test.titleFor', { name: channel.name }) : t('test.title')}
      onCancel={close}
      footer={null}
      width={640}
      destroyOnHidden
    >
      <Flex gap={8} wrap style={{ marginBottom: 12 }}>
        <Input
          allowClear
          prefix={<SearchOutlined />}
          placeholder={t('test.search')}
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          style={{ flex: '1 1 220px' }}
          data-testid="channel-test-search"
        />
        <Button
          onClick={() => (runningAll ? (stop.current = true) : void testAll())}
          disabled={shown.length === 0}
          data-testid="channel-test-all-models"
        >
          {runningAll ? t('test.stop') : t('test.all', { count: shown.length })}
        </Button>
      </Flex>
      <Table<{ model: string }>
        size="small"
        rowKey="model"
        dataSource={shown.map((model) => ({ model }))}
        pagination={shown.length > 10 ? { pageSize: 10, size: 'small', showSizeChanger: false } : false}
        locale={{ emptyText: t('test.noModels') }}
        columns={[
          {
            title: t('test.model'),
            dataIndex: 'model',
            render: (m: string) => (
              <Flex gap={6} align="center" wrap>
                <Typography.Text copyable={{ text: m }}>{m}</Typography.Text>
                {channel?.test_model === m ? <Tag color="blue">{t('test.default')}</Tag> : null}
              </Flex>
            ),
          },
          { title: t('test.result'), key: 'result', width: 200, render: (_, { model }) => render(model) },
          {
            title: '',
            key: 'action',
            width: 80,
            align: 'right',
            render: (_, { model }) => (
              <Button
                size="small"
                type="link"
                loading={results[model]?.state === 'running'}
                onClick={() => void testOne(model)}
                data-testid={`channel-test-model-${model}`}
              >
                {t('actions.test')}
              </Button>
            ),
          },
        ]}
      />
    </Modal>
  );
}
