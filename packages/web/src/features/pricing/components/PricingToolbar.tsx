import { Checkbox, Flex, Segmented, Select, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { SearchInput } from '../../../components/SearchInput';
import { groupRatioColor, trimNumber, type PriceUnit } from '../../../lib/price';
import type { PricingVendor } from '../api';

interface Props {
  keyword: string;
  onKeywordChange: (v: string) => void;
  group: string;
  groups: { name: string; desc: string; ratio: number }[];
  onGroupChange: (g: string) => void;
  /** The chosen vendor's id; undefined: every vendor. */
  vendor: number | undefined;
  vendors: PricingVendor[];
  onVendorChange: (id: number | undefined) => void;
  onlyAvailable: boolean;
  onOnlyAvailableChange: (v: boolean) => void;
  unit: PriceUnit;
  onUnitChange: (u: PriceUnit) => void;
}

/** A group ratio as a tag coloured by its band: green up to 1, blue up to 3, orange up to 5, red above. */
export function GroupRatioTag({ ratio, testid }: { ratio: number; testid?: string }) {
  const { t } = useTranslation('pricing');
  return (
    <Tag color={groupRatioColor(ratio)} style={{ marginInlineEnd: 0 }} data-testid={testid}>
      {t('groupRatio', { ratio: trimNumber(ratio) })}
    </Tag>
  );
}

/**
 * Model search, group selector with ratio tags, vendor filter (when the page lists vendors), availability filter and
 * the price unit.
 */
export function PricingToolbar(p: Props) {
  const { t } = useTranslation('pricing');
  return (
    <Flex wrap gap={8} justify="space-between" align="center" style={{ marginBottom: 12 }}>
      <Flex wrap gap={8} align="center" style={{ flex: '1 1 520px', minWidth: 0 }}>
        <SearchInput
          value={p.keyword}
          onChange={p.onKeywordChange}
          placeholder={t('search')}
          testid="pricing-search"
          style={{ flex: '1 1 220px', minWidth: 0, maxWidth: 360 }}
        />
        <Select
          data-testid="pricing-group"
          value={p.group || undefined}
          onChange={p.onGroupChange}
          aria-label={t('group')}
          placeholder={t('group')}
          popupMatchSelectWidth={false}
          style={{ flex: '0 1 240px', minWidth: 160 }}
          optionLabelProp="short"
          options={p.groups.map((g) => ({
            value: g.name,
            short: (
              <Flex gap={6} align="center">
                <span>{g.name}</span>
                <GroupRatioTag ratio={g.ratio} />
              </Flex>
            ),
            label: (
              <Flex justify="space-between" align="center" gap={12}>
                <span>
                  {g.name}
                  {g.desc && g.desc !== g.name ? <Typography.Text type="secondary"> · {g.desc}</Typography.Text> : null}
                </span>
                <GroupRatioTag ratio={g.ratio} />
              </Flex>
            ),
          }))}
        />
        {p.vendors.length > 0 && (
          <Select<number>
            data-testid="pricing-vendor"
            value={p.vendor}
            onChange={p.onVendorChange}
            allowClear
            aria-label={t('vendor')}
            placeholder={t('allVendors')}
            popupMatchSelectWidth={false}
            style={{ flex: '0 1 180px', minWidth: 140 }}
            options={p.vendors.map((v) => ({ value: v.id, label: v.name }))}
          />
        )}
        <Checkbox
          checked={p.onlyAvailable}
          onChange={(e) => p.onOnlyAvailableChange(e.target.checked)}
          data-testid="pricing-only-available"
        >
          {t('onlyAvailable')}
        </Checkbox>
      </Flex>
      <Segmented<PriceUnit>
        value={p.unit}
        onChange={p.onUnitChange}
        options={[
          { value: 'usd', label: t('unit.usd') },
          { value: 'quota', label: t('unit.quota') },
        ]}
        data-testid="pricing-unit"
      />
    </Flex>
  );
}
