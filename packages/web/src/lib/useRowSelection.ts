import type { TableProps } from 'antd';
import { useCallback, useMemo, useState } from 'react';

/**
 * Rows selected in a paged table, kept across pages (antd hands back only the rows of the page it shows, so
 * rows picked on other pages are kept from the previous selection).
 */
export function useRowSelection<T extends { id: number }>() {
  const [selected, setSelected] = useState<Map<number, T>>(new Map());
  const rowSelection: NonNullable<TableProps<T>['rowSelection']> = useMemo(
    () => ({
      selectedRowKeys: [...selected.keys()],
      preserveSelectedRowKeys: true,
      columnWidth: 40,
      onChange: (keys, rows) => {
        const byId = new Map<number, T>();
        for (const r of rows) if (r) byId.set(r.id, r);
        setSelected(
          (prev) =>
            new Map(
              (keys as number[]).flatMap((id) => {
                const row = byId.get(id) ?? prev.get(id);
                return row ? [[id, row] as const] : [];
              }),
            ),
        );
      },
    }),
    [selected],
  );
  const remove = useCallback((id: number) => {
    setSelected((m) => {
      if (!m.has(id)) return m;
      const next = new Map(m);
      next.delete(id);
      return next;
    });
  }, []);
  const clear = useCallback(() => setSelected(new Map()), []);
  return { selected: [...selected.values()], count: selected.size, rowSelection, remove, clear };
}
