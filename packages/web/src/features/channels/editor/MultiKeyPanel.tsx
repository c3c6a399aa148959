import { Alert, Flex, Radio, Segmented, Tag, Tooltip, Typography } from 'antd';
import { Controller, useWatch, type Control } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import type { Channel } from '../api';
import type { ChannelForm } from '../model/channelForm';
import { maskKey } from '../model/keys';
import { formatTime } from '../../../lib/format-time';

interface Props {
  control: Control<ChannelForm>;
  keys: string[];
  isCreate: boolean;
  /** The loaded channel when editing. */
  loaded?: Channel;
  onKeyUpdateChange: (mode: 'replace' | 'append') => void;
}

const SHOWN = 30;

/**
 * The multi-key view: the keys found, how to create them (one channel per key or one channel holding
 * all), the key choice (random or polling), and for a saved multi-key channel each key's state.
 */
export function MultiKeyPanel({ control, keys, isCreate, loaded, onKeyUpdateChange }: Props) {
  const { t } = useTranslation('channels');
  const info = loaded?.channel_info;
  const loadedMulti = info?.is_multi_key === true;
  const statusList = info?.multi_key_status_list ?? {};
  const createMode = useWatch({ control, name: 'create_mode' });
  const keyUpdate = useWatch({ control, name: 'key_update' });
  const showChoice = (isCreate && createMode === 'multi_to_single') || loadedMulti;
  // Editing starts with a blank key field: the title counts the stored keys until root shows them.
  const count = keys.length === 0 && loadedMulti && !isCreate ? (info?.multi_key_size ?? 0) : keys.length;

  const keyState = (i: number) => {
    if (!loadedMulti || isCreate || keyUpdate === 'append') return null;
    const s = statusList[String(i)];
    if (s === 2) return <Tag color="default">{t('status.disabled')}</Tag>;
    if (s === 3)
      return (
        <Tooltip
          title={
            `${info?.multi_key_disabled_reason?.[String(i)] ?? ''} ${formatTime(info?.multi_key_disabled_time?.[String(i)])}`.trim() ||
            undefined
          }
        >
          <Tag color="warning">{t('status.auto')}</Tag>
        </Tooltip>
      );
    return <Tag color="success">{t('status.enabled')}</Tag>;
  };

  return (
    <div className="tw-ch-multikey" data-testid="channel-multi-key-view">
      <Flex justify="space-between" align="center" wrap gap={8}>
        <Typography.Text strong>{t('multiKey.title', { count })}</Typography.Text>
        {isCreate ? (
          <Controller
            control={control}
            name="create_mode"
            render={({ field }) => (
              <Segmented
                value={field.value}
                onChange={field.onChange}
                options={[
                  { value: 'batch', label: t('multiKey.batch') },
                  { value: 'multi_to_single', label: t('multiKey.multiToSingle') },
                ]}
                data-testid="channel-form-create-mode"
              />
            )}
          />
        ) : null}
      </Flex>
      {isCreate ? (
        <Typography.Paragraph type="secondary" className="tw-ch-hint">
          {createMode === 'batch'
            ? t('multiKey.batchHint', { count: keys.length })
            : t('multiKey.multiHint', { count: keys.length })}
        </Typography.Paragraph>
      ) : null}
      {!isCreate && !loadedMulti ? (
        <Alert type="warning" showIcon title={t('multiKey.editSingle')} className="tw-ch-hint" />
      ) : null}
      {showChoice ? (
        <Flex wrap gap={16} className="tw-ch-hint">
          <Controller
            control={control}
            name="multi_key_mode"
            render={({ field }) => (
              <Flex align="center" gap={8} wrap>
                <Typography.Text type="secondary">{t('multiKey.choice')}</Typography.Text>
                <Radio.Group
                  value={field.value}
                  onChange={(e) => field.onChange(e.target.value)}
                  data-testid="channel-form-multi-key-mode"
                >
                  <Radio value="random">{t('multiKey.random')}</Radio>
                  <Radio value="polling">{t('multiKey.polling')}</Radio>
                </Radio.Group>
              </Flex>
            )}
          />
          {loadedMulti && !isCreate ? (
            <Controller
              control={control}
              name="key_update"
              render={({ field }) => (
                <Flex align="center" gap={8} wrap>
                  <Typography.Text type="secondary">{t('multiKey.update')}</Typography.Text>
                  <Radio.Group
                    value={field.value}
                    onChange={(e) => {
                      field.onChange(e.target.value);
                      onKeyUpdateChange(e.target.value as 'replace' | 'append');
                    }}
                    data-testid="channel-form-key-update"
                  >
                    <Radio value="replace">{t('multiKey.replace')}</Radio>
                    <Radio value="append">{t('multiKey.append')}</Radio>
                  </Radio.Group>
                </Flex>
              )}
            />
          ) : null}
        </Flex>
      ) : null}
      {keys.length > 0 ? (
        <ol className="tw-ch-keylist">
          {keys.slice(0, SHOWN).map((k, i) => (
            <li key={`${i}-${k}`}>
              <span className="tw-ch-keyidx">{i + 1}</span>
              <code className="tw-ch-mono">{maskKey(k)}</code>
              {keyState(i)}
            </li>
          ))}
          {keys.length > SHOWN ? (
            <li className="tw-ch-keymore">{t('multiKey.more', { count: keys.length - SHOWN })}</li>
          ) : null}
        </ol>
      ) : null}
    </div>
  );
}
