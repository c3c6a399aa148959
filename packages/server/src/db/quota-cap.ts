import { QUOTA_MAX } from '@tollway/shared';
import { sql, type RawBuilder, type SqlBool } from 'kysely';

/**
 * The guard every statement raising a balance carries: `column + amount` stays within QUOTA_MAX, checked in the
 * same statement as the increment (atomic: a concurrent credit cannot slip past it). A statement whose guard
 * fails changes no row; its caller answers the refusal (balanceCapMessage).
 */
export function fitsUnderQuotaMax(column: string, amount: number): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} <= ${QUOTA_MAX - Math.max(amount, 0)}`;
}

/** The message and the values (the console's input_too_large text) of a credit refused by the guard. */
export const balanceCapMessage = `the balance would exceed the maximum of ${QUOTA_MAX} quota`;
export const balanceCapParams = { field: 'quota', max: QUOTA_MAX };

/** Thrown inside a transaction whose credit the guard refused (the transaction rolls back). */
export class QuotaMaxExceeded extends Error {
  constructor() {
    super(balanceCapMessage);
  }
}
