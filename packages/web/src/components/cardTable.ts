import type { TableColumnsType } from 'antd';
import type { HTMLAttributes } from 'react';
import './cardTable.css';

/** Class of a table shown as cards on a phone (see cardTable.css). */
const CARDS = 'tw-cards';

/**
 * A table's columns ready for both layouts: each cell carries its column's title (`data-label`, shown before the
 * value when the rows are cards) and each header cell its key (`data-col`). Fixed columns are unpinned on a phone.
 */
export function cardColumns<T>(columns: TableColumnsType<T>, mobile: boolean): TableColumnsType<T> {
  return columns.map((c) => {
    const label = typeof c.title === 'string' ? c.title : undefined;
    const key = c.key === undefined ? undefined : String(c.key);
    return {
      ...c,
      fixed: mobile ? undefined : c.fixed,
      onCell: (row: T, i?: number) => ({ ...c.onCell?.(row, i), 'data-label': label }) as HTMLAttributes<HTMLElement>,
      onHeaderCell: (col) => ({ ...c.onHeaderCell?.(col), 'data-col': key }) as HTMLAttributes<HTMLElement>,
    };
  }) as TableColumnsType<T>;
}

/** The table props of the two layouts: cards without sideways scrolling on a phone, else scrolling past `minWidth`. */
export function cardLayout(mobile: boolean, minWidth: number): { className?: string; scroll?: { x: number } } {
  return mobile ? { className: CARDS } : { scroll: { x: minWidth } };
}
