import type { AffinityCacheStats, OptionKey } from '@tollway/shared';
import { ReloadOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Col, Descriptions, Flex, Popconfirm, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { apiDelete, apiGet } from '../../../lib/api';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { isRootUser } from '../model/access';

const KEYS: OptionKey[] = [
  'channel_affinity_setting.enabled',
  'channel_affinity_setting.switch_on_success',
  'channel_affinity_setting.keep_on_channel_disabled',
  'channel_affinity_setting.max_entries',
  'channel_affinity_setting.default_ttl_seconds',
  'channel_affinity_setting.rules',
];

const STATS_KEY = ['settings', 'channel_affinity_cache'];

/** The pins held now, by rule, and clearing them (root only: new-api's cache routes are root's). */
function AffinityCacheCard() {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const client = useQueryClient();
  const stats = useQuery({
    queryKey: STATS_KEY,
    queryFn: () => apiGet<AffinityCacheStats>('/api/option/channel_affinity_cache'),
  });
  const clear = useMutation({
    mutationFn: (rule: string | undefined) =>
      apiDelete<{ deleted: number }>(
        `/api/option/channel_affinity_cache?${rule === undefined ? 'all=true' : `rule_name=${encodeURIComponent(rule)}`}`,
      ),
    onSuccess: (r) => {
      void message.success(t('affinity.cleared', { count: r.data?.deleted ?? 0 }));
      void client.invalidateQueries({ queryKey: STATS_KEY });
    },
  });
  const s = stats.data;
  return (
    <Card
      size="small"
      title={t('affinity.cacheTitle')}
      data-testid="affinity-cache"
      extra={
        <Flex gap={8}>
          <Button size="small" icon={<ReloadOutlined />} onClick={() => void stats.refetch()}>
            {t('common:action.refresh')}
          </Button>
          <Popconfirm title={t('affinity.clearAllConfirm')} onConfirm={() => clear.mutate(undefined)}>
            <Button size="small" danger loading={clear.isPending} data-testid="affinity-clear-all">
              {t('affinity.clearAll')}
            </Button>
          </Popconfirm>
        </Flex>
      }
    >
      <Descriptions size="small" column={{ xs: 1, md: 4 }}>
        <Descriptions.Item label={t('affinity.state')}>
          <Tag color={s?.enabled ? 'green' : 'default'}>{s?.enabled ? t('affinity.on') : t('affinity.off')}</Tag>
        </Descriptions.Item>
        <Descriptions.Item label={t('affinity.total')}>
          <span data-testid="affinity-total">{s?.total ?? '-'}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('affinity.unknown')}>{s?.unknown ?? '-'}</Descriptions.Item>
        <Descriptions.Item label={t('affinity.capacity')}>
          {s ? (s.cache_capacity > 0 ? `${s.cache_capacity} (${s.cache_algo})` : t('affinity.redis')) : '-'}
        </Descriptions.Item>
      </Descriptions>
      <Flex gap={8} wrap>
        {Object.entries(s?.by_rule_name ?? {}).map(([rule, count]) => (
          <Popconfirm key={rule} title={t('affinity.clearRuleConfirm', { rule })} onConfirm={() => clear.mutate(rule)}>
            <Tag style={{ cursor: 'pointer' }} data-testid={`affinity-rule-${rule}`}>
              {rule}: {count}
            </Tag>
          </Popconfirm>
        ))}
      </Flex>
    </Card>
  );
}

/**
 * Channel affinity (new-api's channel_affinity_setting): a session recognised by a rule goes to the channel and key
 * that served it, so the provider's prompt cache is read. The rules are edited as new-api's JSON list.
 */
export function AffinitySection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="affinity"
      title={t('section.affinity.title')}
      description={t('section.affinity.desc')}
      keys={KEYS}
    >
      <OptionField k="channel_affinity_setting.enabled" span="third" />
      <OptionField k="channel_affinity_setting.switch_on_success" span="third" />
      <OptionField k="channel_affinity_setting.keep_on_channel_disabled" span="third" />
      <OptionField k="channel_affinity_setting.max_entries" min={1} span="half" />
      <OptionField
        k="channel_affinity_setting.default_ttl_seconds"
        min={1}
        suffix={t('affinity.seconds')}
        span="half"
      />
      <OptionField k="channel_affinity_setting.rules" type="json" />
      {isRootUser() ? (
        <Col span={24} style={{ marginBottom: 16 }}>
          <AffinityCacheCard />
        </Col>
      ) : null}
    </SettingsSection>
  );
}
