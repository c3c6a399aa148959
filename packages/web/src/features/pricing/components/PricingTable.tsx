import { CopyOutlined } from '@ant-design/icons';
import { Empty, Flex, Table, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { useTranslation } from 'react-i18next';
import { QuotaType } from '@tollway/shared';
import { useIsMobile } from '../../../lib/useIsMobile';
import { useCopy } from '../../../components/useCopy';
import { sizedPagination } from '../../../lib/paging';
import type { PricingModel } from '../api';
import { tagList } from '../filter';
import { modelPrices, trimNumber, type PriceUnit } from '../../../lib/price';
import { rowTestId } from '../../../lib/table';
import { TipButton } from '../../../components/TipButton';

interface Props {
  rows: PricingModel[];
  loading: boolean;
  group: string;
  groupRatio: number;
  unit: PriceUnit;
  quotaPerUnit: number | undefined;
  /** Shown when nothing matches (the group filter may hide everything). */
  emptyText: string;
  pageSize: number;
  onPageSizeChange: (n: number) => void;
}

/** Task models (drawing actions, music, video): billed once per submitted task. */
const TASK_MODEL = /^(mj_|suno_|swap_face$|kling|jimeng|vidu|sora|doubao-seedance|veo)/i;
export const isTaskModel = (name: string) => TASK_MODEL.test(name);

/** Sort key: dollars for 1M input tokens, or for one call. */
/** Priced by a billing expression (docs/using/pricing.md): one cell shows it in place of the two prices. */
const byExpr = (m: PricingModel): boolean => m.billing_mode === 'tiered_expr' && !!m.billing_expr;
/** The input cell spans the output cell: a per-call price, an expression, or no price. */
const spansBoth = (m: PricingModel): boolean => m.quota_type === QuotaType.Price || m.model_ratio === 0 || byExpr(m);

const costKey = (m: PricingModel) => (m.quota_type === QuotaType.Price ? m.model_price : m.model_ratio * 2);

function Price({ value, suffix, testid }: { value: string; suffix: string; testid?: string }) {
  return (
    <span className="tw-price" data-testid={testid}>
      <span className="tw-price-value">{value}</span>
      <span className="tw-price-unit">{suffix}</span>
    </span>
  );
}

/**
 * What a model's registry entry says: its description (one line, the whole text on hover) and its tags. The entry's
 * icon is not shown: it names an icon set the console does not ship, and a supplied image is never loaded.
 */
function RegistryMeta({ model, width }: { model: PricingModel; width: number }) {
  const { t } = useTranslation('pricing');
  const tags = tagList(model.tags);
  return (
    <>
      {model.description ? (
        <Typography.Text
          type="secondary"
          ellipsis={{ tooltip: model.description }}
          style={{ fontSize: 12, maxWidth: width }}
          data-testid={`pricing-desc-${model.model_name}`}
        >
          {model.description}
        </Typography.Text>
      ) : null}
      {tags.length > 0 && (
        <Flex wrap gap={4} role="group" aria-label={t('tags')} data-testid={`pricing-tags-${model.model_name}`}>
          {tags.map((tag) => (
            <Tag key={tag} variant="filled" style={{ margin: 0, fontSize: 11 }}>
              {tag}
            </Tag>
          ))}
        </Flex>
      )}
    </>
  );
}

/** Models with billing mode, groups, ratios and prices in the chosen group. */
export function PricingTable({
  rows,
  loading,
  group,
  groupRatio,
  unit,
  quotaPerUnit,
  emptyText,
  pageSize,
  onPageSizeChange,
}: Props) {
  const { t } = useTranslation('pricing');
  const mobile = useIsMobile();
  const copy = useCopy();

  const columns: TableColumnsType<PricingModel> = [
    {
      title: t('col.model'),
      dataIndex: 'model_name',
      width: mobile ? 170 : 260,
      fixed: mobile ? undefined : 'left',
      sorter: (a, b) => a.model_name.localeCompare(b.model_name),
      render: (name: string, m) => (
        <Flex vertical gap={2} style={{ minWidth: 0 }}>
          <Flex gap={4} align="center" style={{ minWidth: 0 }}>
            <Typography.Text strong ellipsis={{ tooltip: name }} style={{ maxWidth: mobile ? 130 : 210 }}>
              {name}
            </Typography.Text>
            {isTaskModel(name) && (
              <Tag color="magenta" style={{ margin: 0 }} data-testid={`pricing-task-${name}`}>
                {t('task')}
              </Tag>
            )}
            <TipButton
              subtle
              label={t('copy')}
              icon={<CopyOutlined />}
              onClick={() => void copy(name, t('copied', { name }))}
              data-testid={`pricing-copy-${name}`}
            />
          </Flex>
          <RegistryMeta model={m} width={mobile ? 150 : 230} />
        </Flex>
      ),
    },
    {
      title: t('col.billing'),
      dataIndex: 'quota_type',
      width: 110,
      filters: [
        { text: t('billing.0'), value: QuotaType.Ratio },
        { text: t('billing.1'), value: QuotaType.Price },
      ],
      onFilter: (v, m) => m.quota_type === v,
      render: (q: number, m) =>
        byExpr(m) ? (
          <Tag color="gold">{t('billing.expr')}</Tag>
        ) : q === QuotaType.Price && isTaskModel(m.model_name) ? (
          <Tag color="magenta">{t('billing.task')}</Tag>
        ) : (
          <Tag color={q === QuotaType.Price ? 'purple' : 'blue'}>
            {t(`billing.${q === QuotaType.Price ? QuotaType.Price : QuotaType.Ratio}`)}
          </Tag>
        ),
    },
    {
      title: t('col.groups'),
      dataIndex: 'enable_groups',
      width: 180,
      render: (groups: string[]) =>
        groups.length === 0 ? (
          <Typography.Text type="secondary">{t('value.none')}</Typography.Text>
        ) : (
          <Flex wrap gap={4}>
            {groups.map((g) => (
              <Tag key={g} color={g === group ? 'green' : undefined} style={{ margin: 0 }}>
                {g}
              </Tag>
            ))}
          </Flex>
        ),
    },
    {
      title: t('col.ratio'),
      key: 'ratio',
      width: 170,
      render: (_, m) =>
        m.quota_type === QuotaType.Price || byExpr(m) ? (
          <Typography.Text type="secondary">—</Typography.Text>
        ) : (
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('value.ratio', { model: trimNumber(m.model_ratio), completion: trimNumber(m.completion_ratio) })}
          </Typography.Text>
        ),
    },
    {
      title: t('col.input'),
      key: 'input',
      width: 170,
      sorter: (a, b) => costKey(a) - costKey(b),
      onCell: (m) => ({ colSpan: spansBoth(m) ? 2 : 1 }),
      render: (_, m) => {
        if (byExpr(m))
          return (
            <Typography.Text
              code
              style={{ fontSize: 12, maxWidth: 320 }}
              ellipsis={{ tooltip: m.billing_expr }}
              data-testid={`pricing-expr-${m.model_name}`}
            >
              {m.billing_expr}
            </Typography.Text>
          );
        if (m.quota_type !== QuotaType.Price && m.model_ratio === 0)
          return <Tag color="default">{t('value.notSet')}</Tag>;
        const p = modelPrices(m, groupRatio, unit, quotaPerUnit);
        if ('perCall' in p)
          return (
            <Price
              value={p.perCall}
              suffix={t(isTaskModel(m.model_name) ? 'value.perTask' : 'value.perCall')}
              testid={`pricing-price-${m.model_name}`}
            />
          );
        return <Price value={p.input} suffix={t('value.perMillion')} testid={`pricing-input-${m.model_name}`} />;
      },
    },
    {
      title: t('col.output'),
      key: 'output',
      width: 170,
      onCell: (m) => ({ colSpan: spansBoth(m) ? 0 : 1 }),
      render: (_, m) => {
        const p = modelPrices(m, groupRatio, unit, quotaPerUnit);
        return 'output' in p ? (
          <Price value={p.output} suffix={t('value.perMillion')} testid={`pricing-output-${m.model_name}`} />
        ) : null;
      },
    },
  ];

  // Phones: name and prices first.
  const shown = mobile ? [columns[0]!, columns[4]!, columns[5]!, columns[1]!, columns[2]!, columns[3]!] : columns;

  return (
    <Table<PricingModel>
      data-testid="pricing-table"
      rowKey="model_name"
      size="middle"
      columns={shown}
      dataSource={rows}
      loading={loading}
      scroll={{ x: 1060 }}
      onRow={rowTestId((m) => `pricing-row-${m.model_name}`)}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={emptyText} /> }}
      pagination={{
        ...sizedPagination((range) => t('pageInfo', range)),
        pageSize,
        onShowSizeChange: (_, size) => onPageSizeChange(size),
      }}
    />
  );
}
