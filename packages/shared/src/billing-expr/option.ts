import { z } from 'zod';
import { ErrorCode } from '../error-codes.js';
import { inputRule } from '../input-rules.js';
import { billingExprProblem } from './compile.js';

/** Expressions by model, each parsed and tried on sample calls before it is saved (see billing-expr/compile.ts). */
export const billingExprMap = z.record(z.string(), z.string()).superRefine((map, ctx) => {
  for (const [model, text] of Object.entries(map)) {
    const reason = billingExprProblem(text);
    if (reason === undefined) continue;
    const message = `the billing expression of "${model}" is invalid: ${reason}`;
    ctx.addIssue({
      code: 'custom',
      input: text,
      ...inputRule(ErrorCode.BillingExprInvalid, message, { model, reason }, [model]),
    });
  }
});
