import { SearchOutlined } from '@ant-design/icons';
import { Button, Checkbox, Empty, Flex, Input, Modal, Tag, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';

interface Props {
  /** Models offered by the upstream; null when closed. */
  fetched: string[] | null;
  current: string[];
  onClose: () => void;
  onApply: (models: string[]) => void;
}

/** Advanced model picker: choose which upstream models to add or to keep. */
export function ModelPickerModal({ fetched, current, onClose, onApply }: Props) {
  const { t } = useTranslation('channels');
  const [filter, setFilter] = useState('');
  const [picked, setPicked] = useState<string[]>([]);
  useEffect(() => {
    if (fetched) {
      setPicked(fetched);
      setFilter('');
    }
  }, [fetched]);
  const list = useMemo(() => fetched ?? [], [fetched]);
  const shown = list.filter((m) => m.toLowerCase().includes(filter.trim().toLowerCase()));
  const newCount = list.filter((m) => !current.includes(m)).length;
  const allShownPicked = shown.length > 0 && shown.every((m) => picked.includes(m));
  const toggleShown = (on: boolean) =>
    setPicked(on ? [...new Set([...picked, ...shown])] : picked.filter((m) => !shown.includes(m)));

  return (
    <Modal
      open={fetched !== null}
      title={t('picker.title', { count: list.length })}
      onCancel={onClose}
      width={680}
      destroyOnHidden
      footer={
        <Flex justify="space-between" align="center" wrap gap={8}>
          <Typography.Text type="secondary">{t('picker.selected', { count: picked.length })}</Typography.Text>
          <Flex gap={8} wrap>
            <Button onClick={onClose}>{t('common:action.cancel')}</Button>
            <Button
              onClick={() => onApply([...new Set([...current, ...picked])])}
              disabled={picked.length === 0}
              data-testid="model-picker-append"
            >
              {t('picker.append')}
            </Button>
            <Button
              type="primary"
              onClick={() => onApply(picked)}
              disabled={picked.length === 0}
              data-testid="model-picker-replace"
            >
              {t('picker.replace')}
            </Button>
          </Flex>
        </Flex>
      }
    >
      <Typography.Paragraph type="secondary">{t('picker.hint', { count: newCount })}</Typography.Paragraph>
      <Flex gap={8} align="center" wrap style={{ marginBottom: 12 }}>
        <Input
          allowClear
          prefix={<SearchOutlined />}
          value={filter}
          placeholder={t('picker.search')}
          onChange={(e) => setFilter(e.target.value)}
          style={{ flex: '1 1 240px' }}
        />
        <Checkbox
          checked={allShownPicked}
          indeterminate={!allShownPicked && shown.some((m) => picked.includes(m))}
          onChange={(e) => toggleShown(e.target.checked)}
        >
          {t('picker.all')}
        </Checkbox>
      </Flex>
      {shown.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('picker.none')} />
      ) : (
        <div className="tw-ch-picker" data-testid="model-picker-list">
          {shown.map((m) => (
            <label key={m} className="tw-ch-picker-item">
              <Checkbox
                checked={picked.includes(m)}
                onChange={(e) => setPicked(e.target.checked ? [...picked, m] : picked.filter((x) => x !== m))}
              />
              <span className="tw-ch-picker-name" title={m}>
                {m}
              </span>
              {current.includes(m) ? null : (
                <Tag color="green" variant="filled" style={{ marginInlineEnd: 0 }}>
                  {t('picker.new')}
                </Tag>
              )}
            </label>
          ))}
        </div>
      )}
    </Modal>
  );
}
