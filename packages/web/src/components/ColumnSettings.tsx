import { SettingOutlined } from '@ant-design/icons';
import { Button, Checkbox, Divider, Flex, Popover, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ColumnChange, ColumnVisibility } from '../lib/useStoredColumns';

interface Props<K extends string> {
  columns: { key: K; title: string }[];
  visible: ColumnVisibility<K>;
  onChange: (next: ColumnChange<K>) => void;
  /** The button is `${testId}`, the panel `${testId}-panel`, a checkbox `${testId}-${key}`. */
  testId: string;
  /** Only the gear icon (with a tooltip) instead of an icon and a label. */
  iconOnly?: boolean;
}

/** A button opening checkboxes that choose a table's visible columns, and a reset to all. */
export function ColumnSettings<K extends string>({ columns, visible, onChange, testId, iconOnly }: Props<K>) {
  const { t } = useTranslation('shell');
  const content = (
    <div style={{ width: 220 }} data-testid={`${testId}-panel`}>
      <Flex vertical gap={6}>
        {columns.map((c) => (
          <Checkbox
            key={c.key}
            checked={visible[c.key]}
            onChange={(e) => onChange({ [c.key]: e.target.checked } as ColumnChange<K>)}
            data-testid={`${testId}-${c.key}`}
          >
            {c.title}
          </Checkbox>
        ))}
      </Flex>
      <Divider style={{ margin: '10px 0' }} />
      <Button size="small" block onClick={() => onChange(null)} data-testid={`${testId}-reset`}>
        {t('columns.reset')}
      </Button>
    </div>
  );
  const button = (
    <Button icon={<SettingOutlined />} data-testid={testId} aria-label={t('columns.button')}>
      {iconOnly ? null : t('columns.button')}
    </Button>
  );
  return (
    <Popover trigger="click" placement="bottomRight" title={t('columns.title')} content={content}>
      {iconOnly ? <Tooltip title={t('columns.button')}>{button}</Tooltip> : button}
    </Popover>
  );
}
