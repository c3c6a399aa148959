import { InfoCircleOutlined } from '@ant-design/icons';
import { DEFAULT_GROUP } from '@tollway/shared';
import { Flex, Typography } from 'antd';
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../lib/status';
import { PageHeader } from '../../components/PageHeader';
import { useStoredUser } from '../../lib/session';
import { usePageSize } from '../../lib/paging';
import { usePricing } from './api';
import { filterPricing } from './filter';
import { PricingTable } from './components/PricingTable';
import { GroupRatioTag, PricingToolbar } from './components/PricingToolbar';
import type { PriceUnit } from '../../lib/price';
import './pricing.css';
import { ListCard } from '../../components/ListCard';

/**
 * Public model pricing. Logged out it prices the default group; logged in it starts on the
 * user's own group, and any group open to them can be picked. Prices follow the display setting (USD or quota). Models
 * with a registry entry show its description and tags, and can be filtered by vendor.
 */
export default function PricingPage() {
  const { t } = useTranslation('pricing');
  const user = useStoredUser();
  const { data: status } = useStatus();
  const pricing = usePricing(user?.id);
  const [keyword, setKeyword] = useState('');
  const deferredKeyword = useDeferredValue(keyword);
  const [group, setGroup] = useState('');
  const [vendor, setVendor] = useState<number | undefined>(undefined);
  const [onlyAvailable, setOnlyAvailable] = useState(true);
  const [unit, setUnit] = useState<PriceUnit>((status?.display_in_currency ?? true) ? 'usd' : 'quota');
  const [pageSize, setPageSize] = usePageSize('pricing-page-size');

  const data = pricing.data;
  const groups = useMemo(() => {
    const names = new Set([...Object.keys(data?.usableGroup ?? {}), ...Object.keys(data?.groupRatio ?? {})]);
    return [...names].map((name) => ({
      name,
      desc: data?.usableGroup[name] ?? '',
      ratio: data?.groupRatio[name] ?? 1,
    }));
  }, [data]);

  // Start on the user's own group (or the default one), once the groups are known.
  useEffect(() => {
    if (groups.length === 0 || groups.some((g) => g.name === group)) return;
    const own = user?.group && groups.some((g) => g.name === user.group) ? user.group : undefined;
    setGroup(own ?? (groups.some((g) => g.name === DEFAULT_GROUP) ? DEFAULT_GROUP : groups[0]!.name));
  }, [groups, group, user?.group]);

  const ratio = groups.find((g) => g.name === group)?.ratio ?? 1;
  const vendors = data?.vendors ?? [];
  // A vendor no longer listed (after a refetch) filters nothing.
  const vendorId = vendors.some((v) => v.id === vendor) ? vendor : undefined;
  const rows = useMemo(
    () => filterPricing(data?.models ?? [], { keyword: deferredKeyword, vendorId, group, onlyAvailable }),
    [data, deferredKeyword, vendorId, onlyAvailable, group],
  );

  return (
    <div className="tw-page">
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <ListCard>
        <PricingToolbar
          keyword={keyword}
          onKeywordChange={setKeyword}
          group={group}
          groups={groups}
          onGroupChange={setGroup}
          vendor={vendorId}
          vendors={vendors}
          onVendorChange={setVendor}
          onlyAvailable={onlyAvailable}
          onOnlyAvailableChange={setOnlyAvailable}
          unit={unit}
          onUnitChange={setUnit}
        />
        <Flex vertical gap={4} className="tw-price-info">
          <Flex wrap gap={8} align="center">
            <InfoCircleOutlined />
            <Typography.Text>
              {user
                ? t('current', { group: group || DEFAULT_GROUP })
                : t('currentGuest', { group: group || DEFAULT_GROUP })}
            </Typography.Text>
            <GroupRatioTag ratio={ratio} testid="pricing-group-ratio" />
            <Typography.Text type="secondary">· {t('count', { count: rows.length })}</Typography.Text>
          </Flex>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {unit === 'usd' ? t('formula') : t('formulaQuota')}
          </Typography.Text>
        </Flex>
        <PricingTable
          rows={rows}
          loading={pricing.isFetching}
          group={group}
          groupRatio={ratio}
          unit={unit}
          quotaPerUnit={status?.quota_per_unit}
          emptyText={
            onlyAvailable && (data?.models.length ?? 0) > 0 && deferredKeyword.trim() === '' && vendorId === undefined
              ? t('emptyGroup')
              : t('empty')
          }
          pageSize={pageSize}
          onPageSizeChange={setPageSize}
        />
      </ListCard>
    </div>
  );
}
