import type { TableColumnsType } from 'antd';
import { useEffect, useRef, useState } from 'react';
import type { ColumnKey } from '../model/storage';

/**
 * Columns left out, in this order, while the table is wider than its box (a 1280 px laptop): the figures an operator
 * checks now and then. Status, priority, weight, group and the actions always show.
 */
export const FOLD_ORDER: readonly ColumnKey[] = ['response', 'used', 'balance', 'type', 'health'];

/** Width a column without a number width is counted at. */
const DEFAULT_WIDTH = 120;

const widthOf = <T>(c: TableColumnsType<T>[number]) => (typeof c.width === 'number' ? c.width : DEFAULT_WIDTH);

/**
 * The columns that fit the table's box without sideways scrolling (measured with a ResizeObserver on `ref`), and
 * the keys left out. Until the box is measured, and on a phone (cards), every column stays.
 */
export function useFittedColumns<T>(columns: TableColumnsType<T>, extraWidth: number, enabled: boolean) {
  const ref = useRef<HTMLDivElement>(null);
  const [box, setBox] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setBox(el.clientWidth));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  let kept = columns;
  const folded: ColumnKey[] = [];
  if (enabled && box > 0) {
    let total = columns.reduce((s, c) => s + widthOf(c), extraWidth);
    for (const key of FOLD_ORDER) {
      if (total <= box) break;
      const col = kept.find((c) => c.key === key);
      if (!col) continue;
      kept = kept.filter((c) => c !== col);
      total -= widthOf(col);
      folded.push(key);
    }
  }
  return { ref, columns: kept, folded };
}
