import type { TableColumnsType } from 'antd';
import { useEffect, useRef, useState } from 'react';

/** Width a column without a number width is counted at, unless the table names its own. */
const DEFAULT_WIDTH = 120;

export interface FitOptions<K extends string> {
  /** Keys left out, in this order, while the columns are wider than the box; other columns always show. */
  order: readonly K[];
  /** Width of what sits beside the columns (selection or expand column). */
  extraWidth?: number;
  /** False on a phone (cards): every column stays. */
  enabled: boolean;
  /** Width a column without a number width (one that takes the rest) is counted at. */
  fallbackWidth?: number;
  /**
   * Pixels a column may grow by, in this order, out of the room the kept columns leave (a wide screen): the values
   * that get cut first. Whatever is left spreads over the table as before.
   */
  grow?: Partial<Record<string, number>>;
  /** Room kept for the column that takes the rest (no number width) before any column grows. */
  reserve?: number;
}

/**
 * The table's box width (a ResizeObserver on `ref`), the columns that fit it without sideways scrolling, the keys
 * left out and the kept columns' total width (for `scroll.x`). Until the box is measured every column stays.
 */
export function useFittedColumns<T, K extends string>(columns: TableColumnsType<T>, o: FitOptions<K>) {
  const ref = useRef<HTMLDivElement>(null);
  const [box, setBox] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setBox(el.clientWidth));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const widthOf = (c: TableColumnsType<T>[number]) =>
    typeof c.width === 'number' ? c.width : (o.fallbackWidth ?? DEFAULT_WIDTH);
  let kept = columns;
  let width = columns.reduce((s, c) => s + widthOf(c), o.extraWidth ?? 0);
  const folded: K[] = [];
  if (o.enabled && box > 0) {
    for (const key of o.order) {
      if (width <= box) break;
      const col = kept.find((c) => c.key === key);
      if (!col) continue;
      kept = kept.filter((c) => c !== col);
      width -= widthOf(col);
      folded.push(key);
    }
    // Spare room past the reserve goes to the columns named in `grow`, each up to its share; never past the box.
    let spare = box - width - (o.reserve ?? 0);
    for (const [key, most] of Object.entries(o.grow ?? {})) {
      const col = kept.find((c) => c.key === key);
      if (spare <= 0 || !col || typeof col.width !== 'number' || !most) continue;
      const add = Math.min(spare, most);
      const grown = col.width + add;
      kept = kept.map((c) => (c === col ? { ...c, width: grown } : c));
      width += add;
      spare -= add;
    }
  }
  return { ref, box, columns: kept, folded, width };
}
