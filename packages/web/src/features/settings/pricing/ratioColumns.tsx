import { DeleteOutlined } from '@ant-design/icons';
import { pricePerMillionToRatio, ratioToPricePerMillion } from '@tollway/shared';
import { Button, Flex, Input, Popconfirm, Radio, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import type { TFunction } from 'i18next';
import { parseCell, short, rowIssues, type CellField, type Mode, type RatioRow, type Unit } from './model';

export interface RowActions {
  setCell: (name: string, field: CellField, text: string) => void;
  setMode: (name: string, mode: Mode) => void;
  remove: (name: string) => void;
}

const num = (text: string): number | null => {
  const v = parseCell(text);
  return typeof v === 'number' ? v : null;
};

/** The other form of a cell's value, shown under it: the price of a ratio, or the ratio of a price. */
function hintOf(row: RatioRow, field: CellField, unit: Unit, t: TFunction): string {
  const input = num(row.input);
  const v = num(row[field]);
  if (v === null) return '';
  if (field === 'price') return t('ratio.perCall');
  if (unit === 'ratio') {
    if (field === 'input') return t('ratio.hintPrice', { price: short(ratioToPricePerMillion(v)) });
    return input === null ? '' : t('ratio.hintPrice', { price: short(ratioToPricePerMillion(input) * v) });
  }
  if (field === 'input') return t('ratio.hintRatio', { ratio: short(pricePerMillionToRatio(v)) });
  return input ? t('ratio.hintTimes', { ratio: short(v / input) }) : '';
}

function Cell({
  row,
  field,
  unit,
  t,
  actions,
}: {
  row: RatioRow;
  field: CellField;
  unit: Unit;
  t: TFunction;
  actions: RowActions;
}) {
  const issue = rowIssues(row, unit)[field];
  const disabled = field === 'price' ? row.mode === 'token' : row.mode === 'request';
  const money = field === 'price' || unit === 'price';
  const note = issue
    ? issue === 'number'
      ? t('validation.number')
      : t(`ratio.issue.${issue}`)
    : hintOf(row, field, unit, t);
  return (
    <Flex vertical gap={2}>
      <Input
        size="small"
        value={row[field]}
        disabled={disabled}
        inputMode="decimal"
        prefix={money ? '$' : undefined}
        status={issue && !disabled ? 'error' : undefined}
        onChange={(e) => actions.setCell(row.name, field, e.target.value)}
        aria-label={`${row.name} ${field}`}
        data-testid={`ratio-${field}-${row.name}`}
      />
      <Typography.Text
        type={issue && !disabled ? 'danger' : 'secondary'}
        style={{ fontSize: 12, minHeight: 18, opacity: disabled ? 0.6 : 1 }}
      >
        {note || '\u00a0'}
      </Typography.Text>
    </Flex>
  );
}

/** Columns of the visual ratio editor: model, billing mode, the three per-token cells, the fixed price, delete. */
/** `narrow`: phone layout, where the model column is slimmer and stays put while the rest scrolls sideways. */
export function ratioColumns(
  unit: Unit,
  t: TFunction,
  actions: RowActions,
  narrow = false,
): TableColumnsType<RatioRow> {
  const cell = (field: CellField) => (_: unknown, row: RatioRow) => (
    <Cell row={row} field={field} unit={unit} t={t} actions={actions} />
  );
  return [
    {
      key: 'name',
      title: t('ratio.col.model'),
      dataIndex: 'name',
      width: narrow ? 132 : 230,
      fixed: narrow ? 'left' : undefined,
      render: (name: string, row) => (
        <Flex vertical gap={2} style={{ minWidth: 0 }}>
          <Typography.Text strong ellipsis={{ tooltip: name }} style={{ maxWidth: narrow ? 112 : 210 }}>
            {name}
          </Typography.Text>
          {row.isNew || row.dirty ? (
            <span>
              <Tag
                color={row.isNew ? 'green' : 'orange'}
                style={{ marginInlineEnd: 0, fontSize: 11, lineHeight: '16px' }}
              >
                {t(row.isNew ? 'ratio.new' : 'ratio.changed')}
              </Tag>
            </span>
          ) : null}
        </Flex>
      ),
    },
    {
      key: 'mode',
      title: t('ratio.col.mode'),
      width: 170,
      render: (_, row) => (
        <Radio.Group
          size="small"
          optionType="button"
          buttonStyle="solid"
          value={row.mode}
          onChange={(e) => actions.setMode(row.name, e.target.value as Mode)}
          options={[
            { value: 'token', label: t('ratio.mode.tokenShort') },
            { value: 'request', label: t('ratio.mode.requestShort') },
          ]}
          data-testid={`ratio-mode-${row.name}`}
        />
      ),
    },
    { key: 'input', title: t(`ratio.col.${unit}.input`), width: 150, render: cell('input') },
    { key: 'output', title: t(`ratio.col.${unit}.output`), width: 150, render: cell('output') },
    { key: 'cache', title: t(`ratio.col.${unit}.cache`), width: 150, render: cell('cache') },
    { key: 'price', title: t('ratio.col.fixed'), width: 140, render: cell('price') },
    {
      key: 'actions',
      title: '',
      width: 56,
      align: 'center',
      render: (_, row) => (
        <Popconfirm
          title={t('ratio.deleteConfirm', { name: row.name })}
          okText={t('common:action.delete')}
          okButtonProps={{ danger: true }}
          cancelText={t('common:action.cancel')}
          onConfirm={() => actions.remove(row.name)}
        >
          <Button
            type="text"
            danger
            size="small"
            icon={<DeleteOutlined />}
            aria-label={t('common:action.delete')}
            data-testid={`ratio-delete-${row.name}`}
          />
        </Popconfirm>
      ),
    },
  ];
}
