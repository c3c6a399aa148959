import { ChannelType } from '@tollway/shared';
import { KeyOutlined } from '@ant-design/icons';
import { Checkbox, Input } from 'antd';
import { Controller, useWatch, type Control } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormField } from '../../../components/FormField';
import type { Channel } from '../api';
import type { ChannelForm } from '../model/channelForm';
import { keyPlaceholder, splitKeys } from '../model/keys';
import { MultiKeyPanel } from './MultiKeyPanel';
import { RevealKeyButton } from './RevealKeyButton';
import { Section } from './Section';

interface Props {
  control: Control<ChannelForm>;
  isCreate: boolean;
  multiView: boolean;
  loaded?: Channel;
  onKeyUpdateChange: (mode: 'replace' | 'append') => void;
  /** Root's revealed key goes into the field (the editor loads only the masked key). */
  onRevealed: (key: string) => void;
  revealed: boolean;
}

/**
 * The key (a textarea with the type's key format as placeholder) and, for several keys, the multi-key view.
 * Editing starts blank (the stored key is kept) with the masked key in the placeholder; root can show the key.
 */
export function KeyField({ control, isCreate, multiView, loaded, onKeyUpdateChange, onRevealed, revealed }: Props) {
  const { t } = useTranslation('channels');
  const type = useWatch({ control, name: 'type' });
  const key = useWatch({ control, name: 'key' });
  const keyUpdate = useWatch({ control, name: 'key_update' });
  const loadedMulti = loaded?.channel_info?.is_multi_key === true;
  const keeps = !isCreate && loaded !== undefined && !revealed && keyUpdate !== 'append';
  const placeholder =
    keyUpdate === 'append' && loadedMulti
      ? t('multiKey.appendPlaceholder')
      : keeps
        ? t('editor.keyKeep', { masked: loaded.key })
        : keyPlaceholder(type, t);
  const extra =
    type === ChannelType.VertexAi
      ? t('editor.keyHintVertex')
      : isCreate
        ? t('editor.keyHintCreate')
        : t('editor.keyHintEdit');
  return (
    <Section
      icon={<KeyOutlined />}
      title={t('editor.keySection')}
      extra={
        type !== ChannelType.VertexAi && !loadedMulti ? (
          <Controller
            control={control}
            name="multi_key_off"
            render={({ field }) => (
              <Checkbox
                checked={field.value}
                onChange={(e) => field.onChange(e.target.checked)}
                data-testid="channel-form-multi-key-off"
              >
                {t('multiKey.off')}
              </Checkbox>
            )}
          />
        ) : null
      }
    >
      <FormField
        control={control}
        name="key"
        label={t('editor.key')}
        required={isCreate}
        extra={extra}
        render={(f) => (
          <Input.TextArea
            {...f}
            placeholder={placeholder}
            autoSize={{ minRows: multiView || type === ChannelType.VertexAi ? 4 : 2, maxRows: 12 }}
            spellCheck={false}
            autoComplete="off"
            className="tw-ch-mono"
            data-testid="channel-form-key"
          />
        )}
      />
      {!isCreate && loaded && !revealed ? <RevealKeyButton channelId={loaded.id} onRevealed={onRevealed} /> : null}
      {multiView ? (
        <MultiKeyPanel
          control={control}
          keys={splitKeys(key)}
          isCreate={isCreate}
          loaded={loaded}
          onKeyUpdateChange={onKeyUpdateChange}
        />
      ) : null}
    </Section>
  );
}
