import { Table, type TableColumnsType, type TablePaginationConfig, type TableProps } from 'antd';
import type { HTMLAttributes, ReactNode } from 'react';
import { useIsMobile } from '../lib/useIsMobile';
import { cardColumns, cardLayout } from './cardTable';

/** What a page hands its paged, selectable record table: the rows and the row actions. */
export interface RecordTableProps<T> {
  items: T[];
  loading: boolean;
  pagination: TablePaginationConfig;
  rowSelection: NonNullable<TableProps<T>['rowSelection']>;
  onToggle: (row: T) => Promise<void>;
  onEdit: (row: T) => void;
  onDelete: (row: T) => Promise<void>;
}

interface Props<T> {
  list: RecordTableProps<T>;
  columns: NonNullable<TableProps<T>['columns']>;
  /** Width the columns scroll at (on a phone the rows are cards instead). */
  scrollX: number;
  /** Class of a row (greyed rows). */
  rowClassName: (row: T) => string;
  /** Rows are `${rowTestid}-${id}` for the browser tests. */
  rowTestid: string;
}

/** The row actions column: pinned to the right except on a phone. */
export function actionsColumn<T>(
  title: string,
  width: number,
  className: string,
  mobile: boolean,
  render: (row: T) => ReactNode,
): TableColumnsType<T>[number] {
  return {
    title,
    key: 'actions',
    width,
    className,
    fixed: mobile ? undefined : 'right',
    render: (_, row) => render(row),
  };
}

/** A paged table of records keyed by id, with row selection kept across pages; cards on a phone. */
export function RecordTable<T extends { id: number }>({ list, columns, scrollX, rowClassName, rowTestid }: Props<T>) {
  const mobile = useIsMobile();
  return (
    <Table<T>
      rowKey="id"
      size="middle"
      columns={cardColumns(columns, mobile)}
      dataSource={list.items}
      loading={list.loading}
      {...cardLayout(mobile, scrollX)}
      rowClassName={rowClassName}
      onRow={(r) => ({ 'data-testid': `${rowTestid}-${r.id}` }) as HTMLAttributes<HTMLElement>}
      rowSelection={list.rowSelection}
      pagination={list.pagination}
    />
  );
}
