import type { HTMLAttributes } from 'react';

/** An antd Table `onRow` that marks each row with the `data-testid` `id(row)` gives. */
export const rowTestId =
  <T>(id: (row: T) => string) =>
  (row: T) =>
    ({ 'data-testid': id(row) }) as HTMLAttributes<HTMLElement>;
