import type { PaginationProps } from 'antd';
import { useState } from 'react';
import { useStoredValue } from './storage';

export const PAGE_SIZE_OPTIONS = [10, 20, 50, 100] as const;
const DEFAULT_PAGE_SIZE = 10;

/** A page size remembered in local storage under `key` (default 10, options 10/20/50/100). */
export function usePageSize(key: string): [number, (n: number) => void] {
  return useStoredValue<number>(key, (text) => {
    const stored = Number(text);
    return (PAGE_SIZE_OPTIONS as readonly number[]).includes(stored) ? stored : DEFAULT_PAGE_SIZE;
  });
}

/** How a listing words the "Items {start} - {end} of {total}" text. */
export type PageInfo = (range: { start: number; end: number; total: number }) => string;

/** The parts of antd's pagination every paged table shares: the page-size choices and, with `pageInfo`, the range text. */
export function sizedPagination(pageInfo?: PageInfo): PaginationProps {
  return {
    showSizeChanger: true,
    pageSizeOptions: PAGE_SIZE_OPTIONS.map(String),
    showTotal: pageInfo ? (tot, [start, end]) => pageInfo({ start, end, total: tot }) : undefined,
    responsive: true,
  };
}

/**
 * The page and remembered page size of a paged table or list, and antd's pagination for `total` rows: a new page size
 * goes back to page 1; `pageInfo` words the "Items {start} - {end} of {total}" text (none without it).
 */
export function usePaging(key: string, pageInfo?: PageInfo) {
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = usePageSize(key);
  const pagination = (total: number): PaginationProps => ({
    ...sizedPagination(pageInfo),
    current: page,
    pageSize,
    total,
    onChange: (p, size) => {
      if (size !== pageSize) {
        setPageSize(size);
        setPage(1);
      } else setPage(p);
    },
  });
  return { page, pageSize, setPage, pagination };
}
