import { z } from 'zod';

/** The response envelope of every management call. */
export const envelope = <T extends z.ZodType>(data: T) =>
  z.object({ success: z.boolean(), message: z.string(), data: data.optional() });

export const paged = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), page: z.number().int(), page_size: z.number().int(), total: z.number().int() });

/** One page of a listing, as `paged(item)` checks it: the rows, the 1-based page number, the rows asked per page and the total row count. */
export interface Page<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
}

/** Page query: `p` is 1-based (0 is accepted as the first page), page_size 1..100 (default 10). */
export const pageQuery = z.object({
  p: z.coerce.number().int().min(0).max(1_000_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(10),
});

export const idParam = z.object({ id: z.coerce.number().int().positive() });

/** Booleans in query strings. */
export const queryBool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
