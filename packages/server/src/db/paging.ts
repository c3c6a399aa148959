import type { Page } from '@tollway/shared';
import type { RowWindow, Slice } from './paged-select.js';

export type { Page, Slice };

/** A listing's page query (shared's `pageQuery`): `p` is 1-based (0 is taken as the first page), page_size rows. */
export interface PageQuery {
  p: number;
  page_size: number;
}

/** Which rows a page query asks for. */
export interface PageWindow extends RowWindow {
  page: number;
}

export function pageWindow(q: PageQuery): PageWindow {
  const page = Math.max(1, q.p);
  return { page, offset: (page - 1) * q.page_size, limit: q.page_size };
}

/** Reads the page `q` asks for through `read` and answers it with each row shown by `view`. */
export async function readPage<R, T = R>(
  q: PageQuery,
  read: (w: PageWindow) => Promise<Slice<R>>,
  view?: (row: R) => T,
): Promise<Page<T>> {
  const w = pageWindow(q);
  const { items, total } = await read(w);
  return { items: view ? items.map(view) : (items as unknown as T[]), page: w.page, page_size: q.page_size, total };
}
