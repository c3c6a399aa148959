import type { ErrorCode, ErrorParams } from '@tollway/shared';

/**
 * Why something was refused, given inside another refusal: the English reason (the message), and the rule as an
 * error code with its values, so the console words the reason in the viewer's language.
 */
export class ReasonError extends Error {
  constructor(
    message: string,
    readonly rule: ErrorCode,
    readonly params: ErrorParams = {},
  ) {
    super(message);
  }

  /** The params of a refusal that gives this as its reason: the English reason and the rule's code and values. */
  reasonParams(): ErrorParams {
    return { reason: this.message, reason_code: this.rule, ...this.params };
  }
}
