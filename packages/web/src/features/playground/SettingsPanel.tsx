import { Card, Form, InputNumber, Select, Slider, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSelfGroups, useUserModels } from '../../lib/self';
import type { ChatSettings } from './chat-stream';

/** Model, group, temperature, max tokens and streaming of a playground chat. */
export function SettingsPanel({ value, onChange }: { value: ChatSettings; onChange: (s: ChatSettings) => void }) {
  const { t } = useTranslation('playground');
  const models = useUserModels();
  const groups = useSelfGroups();
  const set = <K extends keyof ChatSettings>(k: K, v: ChatSettings[K]) => onChange({ ...value, [k]: v });
  return (
    <Card title={t('settings')} className="tw-pg-settings">
      <Form layout="vertical">
        <Form.Item label={t('model')}>
          <Select
            showSearch
            aria-label={t('model')}
            value={value.model}
            onChange={(m: string) => set('model', m)}
            loading={models.isLoading}
            options={[...new Set([value.model, ...(models.data ?? [])])].map((m) => ({ value: m, label: m }))}
            data-testid="pg-model"
          />
        </Form.Item>
        <Form.Item label={t('group')}>
          <Select
            aria-label={t('group')}
            value={value.group}
            onChange={(g: string) => set('group', g)}
            loading={groups.isLoading}
            options={Object.entries(groups.data ?? {}).map(([name, g]) => ({
              value: name,
              label: `${name} (${g.desc}, ×${g.ratio})`,
            }))}
            data-testid="pg-group"
          />
        </Form.Item>
        <Form.Item label={`${t('temperature')}: ${value.temperature.toFixed(1)}`}>
          <Slider
            min={0}
            max={1}
            step={0.1}
            ariaLabelForHandle={t('temperature')}
            value={value.temperature}
            onChange={(v: number) => set('temperature', v)}
          />
        </Form.Item>
        <Form.Item label={t('maxTokens')} extra={t('maxTokensHint')}>
          <InputNumber
            min={0}
            precision={0}
            aria-label={t('maxTokens')}
            value={value.maxTokens}
            onChange={(v) => set('maxTokens', Number(v ?? 0))}
            style={{ width: '100%' }}
          />
        </Form.Item>
        <Form.Item label={t('stream')}>
          <Switch aria-label={t('stream')} checked={value.stream} onChange={(v) => set('stream', v)} />
        </Form.Item>
      </Form>
    </Card>
  );
}
