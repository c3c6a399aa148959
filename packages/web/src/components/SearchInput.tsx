import { SearchOutlined } from '@ant-design/icons';
import { Input } from 'antd';
import type { CSSProperties, ReactNode } from 'react';

interface Props {
  value: string;
  onChange: (value: string) => void;
  /** Enter in the box (omit where the list filters as one types). */
  onSearch?: () => void;
  placeholder: string;
  testid: string;
  style: CSSProperties;
  /** Prefix icon; a magnifier unless told. */
  icon?: ReactNode;
}

/** A clearable search box of a list toolbar. */
export function SearchInput({
  value,
  onChange,
  onSearch,
  placeholder,
  testid,
  style,
  icon = <SearchOutlined />,
}: Props) {
  return (
    <Input
      data-testid={testid}
      allowClear
      value={value}
      prefix={icon}
      placeholder={placeholder}
      onChange={(e) => onChange(e.target.value)}
      onPressEnter={onSearch}
      style={style}
    />
  );
}
