import { z } from 'zod';

export const optionItem = z.object({ key: z.string(), value: z.string() });
export const updateOptionBody = z.object({
  key: z.string().min(1).max(128),
  // A missing value is read as '' (new-api's console sends none for a blank field); typed options still refuse ''.
  value: z
    .union([
      z.string().max(1_000_000),
      z.number(),
      z.boolean(),
      z.record(z.string(), z.unknown()),
      z.array(z.unknown()),
    ])
    .optional(),
});
