import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchInput } from '../../../components/SearchInput';

/** The model-name search of a ratio table and the page it shows: a new search goes back to page 1. */
export function useModelSearch() {
  const [search, setText] = useState('');
  const [page, setPage] = useState(1);
  const setSearch = (text: string) => {
    setText(text);
    setPage(1);
  };
  const query = search.trim().toLowerCase();
  const matches = (name: string) => name.toLowerCase().includes(query);
  return { search, setSearch, query, matches, page, setPage };
}

/** The search box of a ratio table. */
export function ModelSearchInput({
  value,
  onChange,
  testid,
}: {
  value: string;
  onChange: (text: string) => void;
  testid: string;
}) {
  const { t } = useTranslation('settings');
  return (
    <SearchInput
      value={value}
      onChange={onChange}
      placeholder={t('ratio.search')}
      style={{ width: 220 }}
      testid={testid}
    />
  );
}
