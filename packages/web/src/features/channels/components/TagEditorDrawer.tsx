import { App, Alert, Button, Drawer, Flex, Form, Input, Select } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useIsMobile } from '../../../lib/useIsMobile';
import { ExactNumberInput } from '../../../components/ExactNumberInput';
import { editTag, useChannelGroups, useKnownModels, type EditTagInput, type TagRow } from '../api';
import { JsonTextArea } from '../editor/JsonTextArea';
import { isJsonObjectText, TEMPLATES } from '../model/json';
import { splitList } from '../model/status';
import { quietly } from '../model/useChannelActions';

interface Props {
  row: TagRow | null;
  onClose: () => void;
  onSaved: () => void;
}

interface Draft {
  new_tag: string;
  model_mapping: string;
  groups: string[];
  models: string[];
  priority: number | null;
  weight: number | null;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** Edits every channel of a tag: PUT /api/channel/tag; blank fields are not changed. */
export function TagEditorDrawer({ row, onClose, onSaved }: Props) {
  const { t } = useTranslation('channels');
  const { message } = App.useApp();
  const mobile = useIsMobile();
  const groups = useChannelGroups();
  const known = useKnownModels();
  const initial = useMemo<Draft | null>(
    () =>
      row
        ? {
            new_tag: row.tag,
            model_mapping: '',
            groups: splitList(row.group),
            models: splitList(row.models),
            priority: null,
            weight: null,
          }
        : null,
    [row],
  );
  const [d, setD] = useState<Draft | null>(initial);
  const [mappingError, setMappingError] = useState(false);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    setD(initial);
    setMappingError(false);
  }, [initial]);

  const set = (patch: Partial<Draft>) => setD((cur) => (cur ? { ...cur, ...patch } : cur));

  const submit = async () => {
    if (!row || !d || !initial) return;
    const body: EditTagInput = { tag: row.tag };
    if (d.new_tag.trim() !== row.tag) body.new_tag = d.new_tag.trim();
    if (d.model_mapping.trim() !== '') {
      if (!isJsonObjectText(d.model_mapping)) {
        setMappingError(true);
        return void message.error(t('validation.modelMappingJson'));
      }
      body.model_mapping = d.model_mapping.trim();
    }
    if (d.groups.length > 0 && !sameSet(d.groups, initial.groups)) body.groups = d.groups;
    if (d.models.length > 0 && !sameSet(d.models, initial.models)) body.models = d.models;
    if (d.priority !== null) {
      if (!Number.isInteger(d.priority)) return void message.error(t('validation.priorityInteger'));
      body.priority = d.priority;
    }
    if (d.weight !== null) {
      if (!Number.isInteger(d.weight) || d.weight < 0) return void message.error(t('validation.weightInteger'));
      body.weight = d.weight;
    }
    if (Object.keys(body).length === 1) return void message.warning(t('tagEditor.noChanges'));
    setSaving(true);
    try {
      const n = await quietly(() => editTag(body));
      if (n !== undefined) {
        void message.success(t('tagEditor.saved', { count: n }));
        onSaved();
      }
    } finally {
      setSaving(false);
    }
  };

  const groupOptions = [...new Set([...(groups.data ?? []), ...(d?.groups ?? [])])].map((g) => ({
    value: g,
    label: g,
  }));
  const modelOptions = [...new Set([...(known.data ?? []), ...(d?.models ?? [])])].map((m) => ({ value: m, label: m }));

  return (
    <Drawer
      open={row !== null}
      onClose={onClose}
      title={row ? t('tagEditor.titleFor', { tag: row.tag }) : t('tagEditor.title')}
      size={mobile ? '100%' : 720}
      destroyOnHidden
      footer={
        <Flex justify="end" gap={8}>
          <Button onClick={onClose}>{t('common:action.cancel')}</Button>
          <Button type="primary" loading={saving} onClick={() => void submit()} data-testid="tag-form-submit">
            {t('common:action.submit')}
          </Button>
        </Flex>
      }
    >
      {d && row ? (
        <Form layout="vertical">
          <Alert
            type="info"
            showIcon
            title={t('tagEditor.hint', { count: row.channel_count })}
            style={{ marginBottom: 16 }}
          />
          <Form.Item label={t('tagEditor.newTag')} extra={t('tagEditor.newTagHint')}>
            <Input
              value={d.new_tag}
              maxLength={64}
              onChange={(e) => set({ new_tag: e.target.value })}
              data-testid="tag-form-new-tag"
            />
          </Form.Item>
          <Form.Item label={t('editor.models')} extra={t('tagEditor.modelsHint')}>
            <Select
              mode="tags"
              value={d.models}
              options={modelOptions}
              onChange={(v: string[]) => set({ models: v })}
              tokenSeparators={[',', '\n']}
              placeholder={t('tagEditor.blankNoChange')}
              className="tw-ch-models"
              data-testid="tag-form-models"
            />
          </Form.Item>
          <Form.Item label={t('editor.groups')} extra={t('tagEditor.groupsHint')}>
            <Select
              mode="multiple"
              value={d.groups}
              options={groupOptions}
              onChange={(v: string[]) => set({ groups: v })}
              placeholder={t('tagEditor.blankNoChange')}
              data-testid="tag-form-groups"
            />
          </Form.Item>
          <Form.Item
            label={t('editor.modelMapping')}
            validateStatus={mappingError ? 'error' : undefined}
            help={mappingError ? t('validation.modelMappingJson') : undefined}
            extra={t('tagEditor.mappingHint')}
          >
            <JsonTextArea
              value={d.model_mapping}
              onChange={(v) => set({ model_mapping: v })}
              onBlur={() => setMappingError(!isJsonObjectText(d.model_mapping))}
              template={TEMPLATES.modelMapping}
              placeholder={t('tagEditor.blankNoChange')}
              status={mappingError ? 'error' : undefined}
              testId="tag-form-model-mapping"
            />
          </Form.Item>
          <Flex gap={16} wrap>
            <Form.Item
              label={t('editor.priority')}
              extra={t('tagEditor.current', { value: row.priority })}
              style={{ flex: '1 1 200px' }}
            >
              <ExactNumberInput
                value={d.priority}
                onChange={(v) => set({ priority: v })}
                placeholder={t('tagEditor.blankNoChange')}
                testid="tag-form-priority"
              />
            </Form.Item>
            <Form.Item
              label={t('editor.weight')}
              extra={t('tagEditor.current', { value: row.weight })}
              style={{ flex: '1 1 200px' }}
            >
              <ExactNumberInput
                value={d.weight}
                onChange={(v) => set({ weight: v })}
                placeholder={t('tagEditor.blankNoChange')}
                testid="tag-form-weight"
              />
            </Form.Item>
          </Flex>
        </Form>
      ) : null}
    </Drawer>
  );
}
