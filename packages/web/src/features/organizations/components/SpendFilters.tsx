import { TAG_LENGTH_MAX } from '@tollway/shared';
import { Input, Select } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMembers, useOrgTokens, useTeams, type SpendFilter } from '../api';
import { useOrgView } from '../context';

/** The model names a log row holds at most (orgLogQuery). */
const MODEL_NAME_MAX = 128;
/** Team id of the calls attributed to no team (the API's team_id=0). */
const NO_TEAM = 0;
/** Two filters share a row on a phone; on a desktop each grows to at most 200 px. */
const FILTER_STYLE = { flex: '1 1 140px', minWidth: 0, maxWidth: 200 };

/**
 * The filters of the spend and logs pages (the API's team_id, member_id, token_id, model_name and tag): teams,
 * members and tokens are picked from the organization's own lists; model and tag are typed, applied on Enter or when
 * the box is left. A role that sees only its own calls gets no member filter; one without tokens no token filter.
 */
export function SpendFilters({ value, onChange }: { value: SpendFilter; onChange: (next: SpendFilter) => void }) {
  const { t } = useTranslation('organizations');
  const { org, can } = useOrgView();
  const all = can('spend.all');
  const teams = useTeams(org.id);
  const members = useMembers(org.id, all);
  const tokens = useOrgTokens(org.id, can('tokens.own'));
  const set = (patch: SpendFilter) => onChange({ ...value, ...patch });

  return (
    <>
      <Select
        allowClear
        showSearch={{ optionFilterProp: 'label' }}
        aria-label={t('filters.team')}
        placeholder={t('filters.team')}
        value={value.team_id}
        onChange={(v?: number) => set({ team_id: v })}
        style={FILTER_STYLE}
        loading={teams.isLoading}
        options={[
          { value: NO_TEAM, label: t('filters.noTeam') },
          ...(teams.data ?? []).map((tm) => ({ value: tm.id, label: tm.name })),
        ]}
        data-testid="spend-filter-team"
      />
      {all && (
        <Select
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          aria-label={t('filters.member')}
          placeholder={t('filters.member')}
          value={value.member_id}
          onChange={(v?: number) => set({ member_id: v })}
          style={FILTER_STYLE}
          loading={members.isLoading}
          options={(members.data ?? []).map((m) => ({
            value: m.user_id,
            label: m.display_name && m.display_name !== m.username ? `${m.display_name} (${m.username})` : m.username,
          }))}
          data-testid="spend-filter-member"
        />
      )}
      {can('tokens.own') && (
        <Select
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          aria-label={t('filters.token')}
          placeholder={t('filters.token')}
          value={value.token_id}
          onChange={(v?: number) => set({ token_id: v })}
          style={FILTER_STYLE}
          loading={tokens.isLoading}
          options={(tokens.data ?? []).map((tk) => ({
            value: tk.id,
            label: all && tk.member_name ? `${tk.name} · ${tk.member_name}` : tk.name,
          }))}
          data-testid="spend-filter-token"
        />
      )}
      <TextFilter
        label={t('filters.model')}
        value={value.model_name}
        max={MODEL_NAME_MAX}
        onChange={(v) => set({ model_name: v })}
        testid="spend-filter-model"
      />
      <TextFilter
        label={t('filters.tag')}
        value={value.tag}
        max={TAG_LENGTH_MAX}
        onChange={(v) => set({ tag: v })}
        testid="spend-filter-tag"
      />
    </>
  );
}

/** A typed filter: applied on Enter, on leaving the box and at once when cleared (not on every key). */
function TextFilter({
  label,
  value,
  max,
  onChange,
  testid,
}: {
  label: string;
  value: string | undefined;
  max: number;
  onChange: (v: string | undefined) => void;
  testid: string;
}) {
  const [draft, setDraft] = useState(value ?? '');
  useEffect(() => setDraft(value ?? ''), [value]);
  const apply = (text: string) => {
    const next = text.trim() || undefined;
    if (next !== value) onChange(next);
  };
  return (
    <Input
      allowClear
      aria-label={label}
      placeholder={label}
      value={draft}
      maxLength={max}
      onChange={(e) => {
        setDraft(e.target.value);
        if (e.target.value === '') apply('');
      }}
      onPressEnter={() => apply(draft)}
      onBlur={() => apply(draft)}
      style={FILTER_STYLE}
      data-testid={testid}
    />
  );
}
