import { LoadingOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, type ButtonProps } from 'antd';
import { useTranslation } from 'react-i18next';

interface Props {
  /** The list is being fetched: the magnifier turns into a spinner. */
  busy: boolean;
  onSearch: () => void;
  testid: string;
  type?: ButtonProps['type'];
}

/**
 * A list's search button. It shows a background fetch as a spinner but stays clickable: antd's `loading` would drop a
 * click made while a refresh runs, losing the search the user just typed.
 */
export function SearchButton({ busy, onSearch, testid, type }: Props) {
  const { t } = useTranslation();
  return (
    <Button
      type={type}
      icon={busy ? <LoadingOutlined /> : <SearchOutlined />}
      aria-busy={busy}
      onClick={() => onSearch()}
      data-testid={testid}
    >
      {t('common:action.search')}
    </Button>
  );
}
