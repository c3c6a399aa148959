/** A billing expression that cannot be parsed or evaluated; `at` is the character offset where parsing failed. */
export class BillingExprError extends Error {
  constructor(
    message: string,
    readonly at?: number,
  ) {
    super(at === undefined ? message : `${message} at character ${at + 1}`);
    this.name = 'BillingExprError';
  }
}
