import { ChannelType } from '@tollway/shared';
import { AppstoreOutlined } from '@ant-design/icons';
import { App, AutoComplete, Button, Col, Flex, Row, Select } from 'antd';
import { useState } from 'react';
import { useWatch, type Control, type UseFormSetValue } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormField } from '../../../components/FormField';
import { useCopy } from '../../../components/useCopy';
import { fetchChannelUpstreamModels, fetchUpstreamModels, useKnownModels, useTypeModels } from '../api';
import type { ChannelForm } from '../model/channelForm';
import { normalizeBaseUrl } from '../model/channelForm';
import { TEMPLATES } from '../model/json';
import { splitKeys } from '../model/keys';
import { quietly } from '../model/useChannelActions';
import { JsonTextArea } from './JsonTextArea';
import { ModelPickerModal } from './ModelPickerModal';
import { Section } from './Section';

interface Props {
  control: Control<ChannelForm>;
  setValue: UseFormSetValue<ChannelForm>;
  isCreate: boolean;
  channelId?: number;
  /** The key as loaded, to know whether the stored key can be used for fetching. */
  loadedKey?: string;
}

/** Models (tags; fill related, fill all, fetch from upstream, clear, copy), model mapping and test model. */
export function ModelsSection({ control, setValue, isCreate, channelId, loadedKey }: Props) {
  const { t } = useTranslation('channels');
  const { message } = App.useApp();
  const copy = useCopy();
  const known = useKnownModels();
  const typeModels = useTypeModels();
  const [type, models, key, baseUrl] = useWatch({ control, name: ['type', 'models', 'key', 'base_url'] });
  const [fetching, setFetching] = useState(false);
  const [fetched, setFetched] = useState<string[] | null>(null);

  const setModels = (list: string[]) =>
    setValue('models', [...new Set(list)], { shouldDirty: true, shouldValidate: true });
  const related = typeModels.data?.[String(type)] ?? [];

  const fetchUpstream = async () => {
    const useStored = !isCreate && channelId !== undefined && (key.trim() === '' || key === loadedKey);
    if (!useStored && key.trim() === '') return void message.warning(t('validation.fillKey'));
    setFetching(true);
    try {
      const first = type === ChannelType.VertexAi ? key.trim() : (splitKeys(key)[0] ?? '');
      const list = await quietly(() =>
        useStored
          ? fetchChannelUpstreamModels(channelId)
          : fetchUpstreamModels({ base_url: normalizeBaseUrl(baseUrl), type, key: first }),
      );
      if (list === undefined) return;
      if (list.length === 0) return void message.info(t('editor.fetchEmpty'));
      setFetched(list);
    } finally {
      setFetching(false);
    }
  };

  const options = [...new Set([...(known.data ?? []), ...models])].map((m) => ({ value: m, label: m }));
  return (
    <Section icon={<AppstoreOutlined />} title={t('editor.modelsSection')}>
      <FormField
        control={control}
        name="models"
        label={t('editor.modelsCount', { count: models.length })}
        required
        extra={t('editor.modelsHint')}
        render={(f) => (
          <Select
            mode="tags"
            value={f.value}
            onChange={(v: string[]) => f.onChange([...new Set(v.map((m) => m.trim()).filter(Boolean))])}
            onBlur={f.onBlur}
            options={options}
            tokenSeparators={[',', '\n']}
            placeholder={t('editor.modelsPlaceholder')}
            loading={known.isLoading}
            className="tw-ch-models"
            allowClear
            data-testid="channel-form-models"
          />
        )}
      />
      <Flex wrap gap={8} className="tw-ch-model-tools">
        <Button
          size="small"
          disabled={related.length === 0}
          onClick={() => setModels([...models, ...related])}
          data-testid="channel-form-fill-related"
        >
          {t('editor.fillRelated')}
        </Button>
        <Button
          size="small"
          disabled={!known.data?.length}
          onClick={() => setModels([...models, ...(known.data ?? [])])}
          data-testid="channel-form-fill-all"
        >
          {t('editor.fillAll')}
        </Button>
        <Button
          size="small"
          type="primary"
          ghost
          loading={fetching}
          onClick={() => void fetchUpstream()}
          data-testid="channel-form-fetch-models"
        >
          {t('editor.fetchModels')}
        </Button>
        <Button
          size="small"
          danger
          disabled={models.length === 0}
          onClick={() => setModels([])}
          data-testid="channel-form-clear-models"
        >
          {t('editor.clearModels')}
        </Button>
        <Button
          size="small"
          disabled={models.length === 0}
          onClick={() => void copy(models.join(','), t('editor.modelsCopied'))}
        >
          {t('editor.copyModels')}
        </Button>
      </Flex>
      <Row gutter={16}>
        <Col xs={24}>
          <FormField
            control={control}
            name="model_mapping"
            label={t('editor.modelMapping')}
            extra={t('editor.modelMappingHint')}
            render={(f) => (
              <JsonTextArea
                value={f.value}
                onChange={f.onChange}
                onBlur={f.onBlur}
                template={TEMPLATES.modelMapping}
                testId="channel-form-model-mapping"
              />
            )}
          />
        </Col>
        <Col xs={24} md={12}>
          <FormField
            control={control}
            name="test_model"
            label={t('editor.testModel')}
            extra={t('editor.testModelHint')}
            render={(f) => (
              <AutoComplete
                value={f.value}
                onChange={f.onChange}
                onBlur={f.onBlur}
                options={models.map((m) => ({ value: m }))}
                showSearch={{
                  filterOption: (input, o) =>
                    String(o?.value ?? '')
                      .toLowerCase()
                      .includes(input.toLowerCase()),
                }}
                placeholder={t('editor.testModelPlaceholder')}
                allowClear
                data-testid="channel-form-test-model"
              />
            )}
          />
        </Col>
      </Row>
      <ModelPickerModal
        fetched={fetched}
        current={models}
        onClose={() => setFetched(null)}
        onApply={(list) => {
          setModels(list);
          setFetched(null);
          void message.success(t('editor.modelsApplied', { count: list.length }));
        }}
      />
    </Section>
  );
}
