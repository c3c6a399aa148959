import { useQuery } from '@tanstack/react-query';
import { Select } from 'antd';
import { useDeferredValue, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { searchUsers, type UserOption } from '../api';

interface Props {
  value: number[];
  onChange: (ids: number[]) => void;
}

/** Multi-select of users found by the admin user search; picked users stay listed while the search changes. */
export function RecipientPicker({ value, onChange }: Props) {
  const { t } = useTranslation('messages');
  const [search, setSearch] = useState('');
  const keyword = useDeferredValue(search);
  const [picked, setPicked] = useState<Map<number, UserOption>>(new Map());
  const found = useQuery({ queryKey: ['message-recipients-search', keyword], queryFn: () => searchUsers(keyword) });
  const options = new Map<number, UserOption>(picked);
  for (const u of found.data ?? []) options.set(u.id, u);
  return (
    <Select
      mode="multiple"
      value={value}
      showSearch={{ filterOption: false, onSearch: setSearch }}
      loading={found.isFetching}
      placeholder={t('placeholder.recipients')}
      data-testid="message-recipients"
      options={[...options.values()].map((u) => ({
        value: u.id,
        label: u.display_name ? `${u.username} (${u.display_name})` : u.username,
      }))}
      onChange={(ids: number[]) => {
        setPicked(new Map(ids.map((id) => [id, options.get(id) ?? { id, username: String(id) }])));
        onChange(ids);
      }}
    />
  );
}
