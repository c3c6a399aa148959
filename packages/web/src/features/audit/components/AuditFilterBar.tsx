import { Button, DatePicker, Flex, Input, Select } from 'antd';
import { SearchOutlined } from '@ant-design/icons';
import type { Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EMPTY_FILTERS, type AuditFilters } from '../api';
import { AUDIT_ACTIONS, AUDIT_TARGETS, auditActionText, auditTargetText } from '../labels';

type Draft = Omit<AuditFilters, 'start_timestamp' | 'end_timestamp'> & { range: [Dayjs | null, Dayjs | null] | null };

const toFilters = (d: Draft): AuditFilters => ({
  actor: d.actor.trim(),
  action: d.action.trim(),
  target_type: d.target_type.trim(),
  target_id: d.target_id.trim(),
  outcome: d.outcome,
  start_timestamp: d.range?.[0] ? d.range[0].unix() : 0,
  end_timestamp: d.range?.[1] ? d.range[1].unix() : 0,
});

/** The audit filters; applied on Search (or Enter), cleared by Reset. */
export function AuditFilterBar({ onApply }: { onApply: (f: AuditFilters) => void }) {
  const { t, i18n } = useTranslation('audit');
  const blank: Draft = { ...EMPTY_FILTERS, range: null };
  const [draft, setDraft] = useState<Draft>(blank);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setDraft((d) => ({ ...d, [k]: v }));
  const apply = () => onApply(toFilters(draft));
  const text = (k: 'actor' | 'target_id', placeholder: string, width: number) => (
    <Input
      allowClear
      value={draft[k]}
      onChange={(e) => set(k, e.target.value)}
      onPressEnter={apply}
      placeholder={placeholder}
      style={{ width }}
      data-testid={`audit-filter-${k}`}
    />
  );
  // Actions and target types by their words (the code is what is searched and sent).
  const choice = (k: 'action' | 'target_type', placeholder: string, width: number, options: string[]) => (
    <Select
      allowClear
      showSearch={{ optionFilterProp: 'search' }}
      value={draft[k] || undefined}
      onChange={(v?: string) => set(k, v ?? '')}
      placeholder={placeholder}
      aria-label={placeholder}
      style={{ width }}
      popupMatchSelectWidth={false}
      data-testid={`audit-filter-${k}`}
      options={options.map((code) => {
        const label = k === 'action' ? auditActionText(code, i18n.language) : auditTargetText(code, '', i18n.language);
        return { value: code, label, search: `${label} ${code}` };
      })}
    />
  );
  return (
    <Flex wrap gap={8} style={{ marginBottom: 16 }}>
      {text('actor', t('filter.actor'), 160)}
      {choice('action', t('filter.action'), 200, Object.keys(AUDIT_ACTIONS))}
      {choice('target_type', t('filter.targetType'), 170, Object.keys(AUDIT_TARGETS))}
      {text('target_id', t('filter.targetId'), 130)}
      <Select
        value={draft.outcome}
        onChange={(v) => set('outcome', v)}
        style={{ width: 130 }}
        aria-label={t('filter.outcome')}
        options={[
          { value: '', label: t('outcome.all') },
          { value: 'ok', label: t('outcome.ok') },
          { value: 'denied', label: t('outcome.denied') },
        ]}
      />
      <DatePicker.RangePicker showTime value={draft.range} onChange={(v) => set('range', v as Draft['range'])} />
      <Button type="primary" icon={<SearchOutlined />} onClick={apply} data-testid="audit-search">
        {t('filter.search')}
      </Button>
      <Button
        onClick={() => {
          setDraft(blank);
          onApply(EMPTY_FILTERS);
        }}
      >
        {t('filter.reset')}
      </Button>
    </Flex>
  );
}
