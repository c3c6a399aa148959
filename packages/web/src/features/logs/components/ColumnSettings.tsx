import { SettingOutlined } from '@ant-design/icons';
import { Button, Checkbox, Divider, Flex, Popover } from 'antd';
import { useTranslation } from 'react-i18next';
import type { LogColumn } from '../hooks';

interface Props {
  columns: { key: LogColumn; title: string }[];
  visible: Record<LogColumn, boolean>;
  onChange: (next: Partial<Record<LogColumn, boolean>> | null) => void;
}

/** A popover of checkboxes choosing the visible log columns (kept locally). */
export function ColumnSettings({ columns, visible, onChange }: Props) {
  const { t } = useTranslation('logs');
  const content = (
    <div style={{ width: 220 }} data-testid="logs-columns-panel">
      <Flex vertical gap={6}>
        {columns.map((c) => (
          <Checkbox key={c.key} checked={visible[c.key]} onChange={(e) => onChange({ [c.key]: e.target.checked })} data-testid={`logs-column-${c.key}`}>
            {c.title}
          </Checkbox>
        ))}
      </Flex>
      <Divider style={{ margin: '10px 0' }} />
      <Button size="small" block onClick={() => onChange(null)}>
        {t('filter.columnsReset')}
      </Button>
    </div>
  );
  return (
    <Popover trigger="click" placement="bottomRight" title={t('filter.columnsTitle')} content={content}>
      <Button icon={<SettingOutlined />} data-testid="logs-columns">
        {t('filter.columns')}
      </Button>
    </Popover>
  );
}
